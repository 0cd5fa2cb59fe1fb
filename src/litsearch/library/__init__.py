"""The local SQLite file: the response cache's table, the saved-paper library with its own
record schema, and the citation links among saved papers."""
