"""Guardrails: pinned tool definitions (held until approved) and the per-client tool policy."""
