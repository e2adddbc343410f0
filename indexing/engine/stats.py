"""In-memory statistics of indexed documents and compressed responses (never persisted here)."""

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DocumentStats:
    """What indexing one document cost and produced."""

    label: str
    lines: int
    chunks: int
    bytes: int
    seconds: float


@dataclass(frozen=True, slots=True)
class CompressionStats:
    """One compressed tool response: what came from upstream and what the client received."""

    label: str
    tool: str
    run: int
    original_bytes: int
    delivered_bytes: int
    lines: int
    chunks: int
    seconds: float
