"""The search engine behind context management: chunking, the per-session FTS5 store,
search, read-back, response compression and the optional vector encoder.

It imports nothing of the project outside this package, nor Django, nor the `mcp` SDK
(`make lint` checks it), so it can be used and tested as a plain library.
"""
