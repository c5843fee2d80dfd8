"""The message catalogs (seeds/locales/): every text the service says to people, in each language."""
