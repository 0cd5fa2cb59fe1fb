"""What every door stands on (the command line, the MCP server, the Python API, deep-search
sessions): the settings with the declared services, the console, the cache and the store, one
way online, atomic files, redacted logs, the result formats. No door imports another."""
