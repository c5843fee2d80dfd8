"""Game logs: exported, imported, verified, and replayed from a request."""
