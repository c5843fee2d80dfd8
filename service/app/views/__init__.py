"""What a viewer is shown of a game and in which words: views, redacted events, descriptions, kinds."""
