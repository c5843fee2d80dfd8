"""Pure rules engines, one sub-package per game. Nothing here does I/O beyond
reading the games' own static data from seeds/ once, at import."""
