"""A game's past and live events: listed, streamed, followed, replayed at any version."""
