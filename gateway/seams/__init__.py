"""Seams to libraries: the only modules that use other libraries' private names.

One module per library (`mcp_sdk_seam` for the `mcp` SDK, `twisted_seam` for Twisted), each with a
narrow interface of functions the rest of the gateway calls and a `check()` that every one
of them runs on first use: when a release drops or renames a private name, the gateway
fails there, with an error naming the seam module, the library, its version and the name
(`private_names.SeamBroken`). ruff's banned-api (pyproject.toml) and
tests/test_architecture.py keep private names out of every other module.
"""
