"""How long games are kept (retention, DeleteGame) and what the store lost (losses)."""
