"""A seat's Play session: commands in, results and every later event out, on one connection."""
