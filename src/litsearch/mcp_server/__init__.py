"""The MCP server (`lit-search mcp`): the search, paper, citation, library and OpenAlex entity
tools over the Model Context Protocol, on the same pipeline as the command."""
