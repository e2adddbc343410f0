"""Shared by the indexing benchmarks: real text from this machine, and docs/benchmarks.md sections.

Every corpus is text that already exists on a Debian machine set up for this repository
(the pinned `.venv` and `node_modules`, Debian's man pages, changelogs, logs and package
records); nothing here writes text of its own.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import gzip
import hashlib
import json
import os
import platform
import random
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
SITE_PACKAGES = ROOT / ".venv" / "lib" / "python3.12" / "site-packages"
NODE_MODULES = ROOT / "node_modules"
DOC_TITLE = "# Benchmarks\n"
SPLITS = ("dev", "test")
"""Questions are tuned on in `dev` and only reported in `test` (whose misses are never shown)."""


def split_of(key: str) -> str:
    """`dev` or `test` for a question, fixed by its id (or text) alone: about half each."""
    return SPLITS[hashlib.sha256(key.encode()).digest()[0] % 2]


def recall_interval(ranks: list[int | None], k: int, resamples: int = 2000) -> str:
    """The 95% bootstrap interval of recall@k over `ranks` (1-based, None for a miss), as
    "a-b": how far a split of this size moves with the questions it happens to hold. The
    resampling is seeded, so a rerun prints the same interval."""
    found = [rank is not None and rank <= k for rank in ranks]
    if not found:
        return "-"
    draw = random.Random(0)
    shares = sorted(sum(draw.choices(found, k=len(found))) / len(found) for _ in range(resamples))
    return f"{shares[int(0.025 * resamples)]:.2f}-{shares[int(0.975 * resamples) - 1]:.2f}"


# --------------------------------------------------------------------------- docs/benchmarks.md


def write_section(name: str, text: str, docs: Path = DOCS) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->` in `docs`.

    The section is appended when the markers are missing, and the file is created with a
    one-line title when it does not exist. Nothing outside the markers changes.
    """
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{text.strip()}\n{end}"
    current = docs.read_text(encoding="utf-8") if docs.exists() else DOC_TITLE
    if start in current and end in current.split(start, 1)[1]:
        before, rest = current.split(start, 1)
        updated = before + block + rest.split(end, 1)[1]
    else:
        updated = current.rstrip("\n") + "\n\n" + block + "\n"
    docs.parent.mkdir(parents=True, exist_ok=True)
    docs.write_text(updated, encoding="utf-8")


def read_section(name: str, docs: Path = DOCS) -> str:
    """The text between `<!-- name:start -->` and `<!-- name:end -->` in `docs`.

    Raises:
        SystemExit: the section is not there.
    """
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    current = docs.read_text(encoding="utf-8") if docs.exists() else ""
    if start not in current or end not in current.split(start, 1)[1]:
        raise SystemExit(f"no {name} section in {docs}")
    return current.split(start, 1)[1].split(end, 1)[0].strip()


def markdown_table(columns: list[str], rows: list[list[str]], align: str) -> str:
    """A markdown table; `align` has one letter per column, `l` (left) or `r` (right)."""
    rule = ["---:" if side == "r" else "---" for side in align]
    lines = [columns, rule, *rows]
    return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)


def machine() -> str:
    """One line naming this machine: date, CPUs, Python and SQLite versions."""
    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = ", " + line.split(":", 1)[1].strip()
                break
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load = ""
    with contextlib.suppress(OSError, AttributeError):
        load = f"; load average at start {os.getloadavg()[0]:.1f} (1 min)"
    return (
        f"{now}; nproc {os.cpu_count()}{cpu}; Python {platform.python_version()}; "
        f"SQLite {sqlite3.sqlite_version}; {platform.system()} {platform.release()}{load}"
    )


def relative(path: Path) -> str:
    """Show `path` relative to the repository when it is inside it."""
    with contextlib.suppress(ValueError):
        return str(path.relative_to(ROOT))
    return str(path)


# --------------------------------------------------------------------------- real text


def clear_caches() -> None:
    """Forget parsed JSON files and package records (memory measurements start from a
    clean heap)."""
    _json_item.cache_clear()
    package_records.cache_clear()


def read_text(path: Path) -> str:
    """Read a text file (gzip-compressed when it ends in .gz), replacing undecodable bytes."""
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return data.decode("utf-8", "replace")


def render_man(path: Path, width: int = 80) -> str:
    """Render a man page to plain text with `man -l`, else groff, else return the raw roff."""
    env = {**os.environ, "MANWIDTH": str(width), "MAN_KEEP_FORMATTING": "", "LC_ALL": "C.UTF-8"}
    env.pop("MANPAGER", None)
    env.pop("PAGER", None)
    commands = []
    if shutil.which("man"):
        commands.append((["man", "--nh", "--nj", "-P", "cat", "-l", str(path)], None))
        commands.append((["man", "-P", "cat", "-l", str(path)], None))
    if shutil.which("groff"):
        roff = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        commands.append((["groff", "-man", "-Tutf8", "-P", "-cbou", f"-rLL={width}n"], roff))
    for command, stdin in commands:
        done = subprocess.run(command, input=stdin, capture_output=True, env=env, check=False)
        if done.returncode == 0 and done.stdout.strip():
            return _strip_overstrike(done.stdout.decode("utf-8", "replace"))
    return read_text(path)


def _strip_overstrike(text: str) -> str:
    """Drop `x\\bx` bold and `_\\bx` underline sequences some renderers still emit."""
    while "\b" in text:
        index = text.index("\b")
        text = text[: max(0, index - 1)] + text[index + 1 :]
    return text


def files(root: Path, pattern: str) -> list[Path]:
    """Files under `root` matching `pattern`, sorted, so a corpus is the same on every run."""
    return sorted(path for path in root.rglob(pattern) if path.is_file()) if root.exists() else []


def markdown_files() -> list[Path]:
    return files(NODE_MODULES, "*.md") + files(SITE_PACKAGES, "*.md")


def json_files() -> list[Path]:
    return files(NODE_MODULES, "*.json") + files(SITE_PACKAGES, "*.json")


def python_files() -> list[Path]:
    return files(SITE_PACKAGES / "django", "*.py")


def log_files() -> list[Path]:
    """Readable plain-text logs in /var/log, then Debian changelogs (both plain text)."""
    logs = []
    for path in files(Path("/var/log"), "*.log"):
        with contextlib.suppress(OSError):
            if os.access(path, os.R_OK) and path.stat().st_size:
                logs.append(path)
    return logs + sorted(Path("/usr/share/doc").glob("*/changelog.Debian.gz"))


def cycle_texts(paths: list[Path]) -> Iterator[str]:
    """Yield the files' texts in order, then again from the start, for ever."""
    texts = []
    for path in paths:
        with contextlib.suppress(OSError):
            text = read_text(path)
            if text.strip():
                texts.append(text)
                yield text
    if not texts:
        raise RuntimeError("no readable files for this corpus")
    while True:
        yield from texts


def text_of_size(paths: list[Path], size: int, skip: int = 0) -> str:
    """Concatenate the files (repeating them if needed) to `size` UTF-8 bytes, cut at a line end.

    `skip` starts that many files into the sequence, so documents of one store differ.
    """
    parts: list[str] = []
    total = 0
    texts = cycle_texts(paths)
    for _ in range(skip):
        next(texts)
    for text in texts:
        data = text if text.endswith("\n") else text + "\n"
        parts.append(data)
        total += len(data.encode("utf-8"))
        if total >= size:
            break
    joined = "\n".join(parts).encode("utf-8")[:size].decode("utf-8", "ignore")
    return joined[: joined.rfind("\n") + 1] or joined


def json_of_size(paths: list[Path], size: int, skip: int = 0) -> str:
    """A JSON array of `{"path", "content"}` items, one per real JSON file, of about `size` bytes.

    Written with indent=2 like the files themselves; repeats files when there are too few.
    """
    items: list[str] = []
    total = 2
    ordered = paths[skip % len(paths) :] + paths[: skip % len(paths)] if paths else []
    for _ in range(3 + size // 100_000):  # passes over the files; repeats when too few
        for path in ordered:
            item = _json_item(path)
            if item is None:
                continue
            grown = total + len(item.encode("utf-8")) + 2
            if grown > size * 1.05:
                continue  # too big for what is left: try a smaller file
            items.append(item)
            total = grown
            if total >= size:
                return "[\n" + ",\n".join(items) + "\n]\n"
    if not items:
        raise RuntimeError(f"no parsable JSON file fits in {size:,} bytes")
    return "[\n" + ",\n".join(items) + "\n]\n"


DPKG_STATUS = Path("/var/lib/dpkg/status")


@functools.cache
def package_records() -> tuple[str, ...]:
    """Debian's installed-package records (`/var/lib/dpkg/status`), each a JSON object of its
    fields written compactly; a field's continuation lines join its value by newlines."""
    records: list[str] = []
    for stanza in DPKG_STATUS.read_text(encoding="utf-8", errors="replace").split("\n\n"):
        record: dict[str, str] = {}
        field = ""
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") and field:
                record[field] += "\n" + line.strip()
            elif ":" in line:
                field, value = line.split(":", 1)
                record[field] = value.strip()
        if record:
            records.append(json.dumps(record, ensure_ascii=False))
    if not records:
        raise RuntimeError(f"no package records in {DPKG_STATUS}")
    return tuple(records)


def records_of_size(size: int, skip: int = 0) -> str:
    """A compact JSON array of package records (as an API answers a list), of about `size`
    bytes; repeats the records when there are too few."""
    records = package_records()
    chosen: list[str] = []
    total = 2
    while total < size:
        record = records[(skip + len(chosen)) % len(records)]
        chosen.append(record)
        total += len(record.encode("utf-8")) + 2
    return "[" + ", ".join(chosen) + "]"


@functools.cache
def _json_item(path: Path) -> str | None:
    """One array item: the file's path and its parsed content, indented as an array member."""
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    item = json.dumps({"path": relative(path), "content": content}, indent=2)
    return "  " + item.replace("\n", "\n  ")
