"""The saved-paper library in the local SQLite file: its own record schema, the citation links
among saved papers, the file's schema and transactions (the response cache's table beside it
is net/response_store.py's)."""
