"""Decisions turned into stored events: a seat's command, the bots' moves, table changes, appended once each."""
