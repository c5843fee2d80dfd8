"""The Ludothèque server: application layer, event stores, transports, auth, CLI."""
