"""Games created, read and listed; seat tokens rotated."""
