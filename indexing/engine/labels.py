"""Run numbering for response labels: `<tool name>:<run>`, never reused while the process runs."""

import threading
from typing import NamedTuple


class Label(NamedTuple):
    """A response label and the parts it is made of."""

    text: str
    tool: str
    run: int


class LabelCounter:
    """Hands out labels with runs counted per tool name from 1; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, int] = {}

    def next_label(self, tool: str) -> Label:
        """Return a fresh label for `tool`; a run number is never handed out twice."""
        with self._lock:
            run = self._runs.get(tool, 0) + 1
            self._runs[tool] = run
        return Label(f"{tool}:{run}", tool, run)


LABELS = LabelCounter()
"""The process-wide counter: share it between sessions so a label always names one content."""
