"""The scholarly APIs, one room per API: its declaration (``<name>_declaration.py``: base URL,
key, email use, pace, cache lifetime, capabilities), its HTTP flows (``<name>.py``) and its pure
parsers (``<name>_parse.py``); ``base`` holds the contract they implement, ``registry`` lists
every declared service."""
