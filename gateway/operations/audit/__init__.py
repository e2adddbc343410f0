"""The audit trail: who called what and who changed what, kept append-only for a set time.

- `models`: `AuditEvent`, one row per call or change, never updated;
- `observer`, `writer`: call events, queued by a `CallObserver` and written in batches;
- `arguments`: tool arguments with secrets masked, recorded only when asked for;
- `changes`: admin and command changes, saved with the change they describe;
- `export`, `admin`: JSON lines and the read-only admin list; `retention`: pruning.
"""
