"""The scholarly APIs, one module per API, each owning all of its HTTP (search, lookup,
references, citations, batch) and its pure parsers; ``base`` holds the contract they share
and the registry."""
