"""The gateway as an OAuth 2.1 authorization server (django-oauth-toolkit underneath).

`resource` names this gateway's protected resource; `validator` holds the protocol
decisions; `connections` ties each approved application to a Client owned by the member;
`access` checks an OAuth access token presented at /mcp; `metadata_document` fetches Client
ID Metadata Documents; `views` and `urls` put the endpoints at their well-known addresses.
"""
