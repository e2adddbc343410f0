"""Reading a stored document back: line slices for IndexRead, and chunk id ranges."""

from indexing.engine.chunker import Lines
from indexing.engine.store_schema import DocumentInfo, LineSlice


def chunk_ranges(documents: list[DocumentInfo]) -> list[tuple[int, int]]:
    """The chunk id ranges of `documents`, adjacent ones merged."""
    ranges: list[tuple[int, int]] = []
    for info in sorted(documents, key=lambda info: info.first_chunk):
        if info.last_chunk < info.first_chunk:
            continue
        if ranges and ranges[-1][1] + 1 == info.first_chunk:
            ranges[-1] = (ranges[-1][0], info.last_chunk)
        else:
            ranges.append((info.first_chunk, info.last_chunk))
    return ranges


def line_slices(
    lines: Lines, first: int, last: int, skip_chars: int, max_chars: int
) -> list[LineSlice]:
    """1-based lines first..last, the first from character `skip_chars`, each cut to
    `max_chars`; reading stops once `max_chars` characters were returned."""
    slices: list[LineSlice] = []
    total = 0
    for number in range(first, min(last, len(lines)) + 1):
        first_char = skip_chars if number == first else 0
        length, text = lines.piece(number - 1, first_char, max_chars)
        slices.append(LineSlice(number, length, first_char, text))
        total += len(text)
        if total >= max_chars:
            break
    return slices
