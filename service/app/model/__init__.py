"""A game as the service holds it: errors, envelopes, stored events, seeds, table, snapshots, the live-game cache."""
