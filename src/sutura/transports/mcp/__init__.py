"""MCP over stdio (``sutura mcp``): the server, its tools and schemas, and the bounded stdio."""
