"""OAuth grants to upstream MCP servers: discovery, client registration, the Connect flow,
encrypted storage and refresh (docs/oauth.md). `tokens.py` is what connections call."""
