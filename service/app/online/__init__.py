"""Playing online: presence, join codes, the turn clocks' schedule and worker."""
