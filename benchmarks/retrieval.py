"""Retrieval check: does IndexSearch find the line that answers an agent's question?

Run from the repository root (a few seconds):

    .venv/bin/python benchmarks/retrieval.py [--no-docs] [--verbose]

Real documents of this machine (Debian packages installed by default in this image, and the
repository's pinned venv and node_modules) are indexed into ONE `SessionStore` through
`ResponseCompressor`, as the gateway does with large tool responses. Each question of
`benchmarks/retrieval_questions.json` names its document and a substring of exactly one line
of it (line numbers are found at run time, so other versions of the files still work). A
question is answered at rank k when the k-th hit of `store.search(question)` is a chunk of
that document covering that line. Reported: recall@1 and recall@5 with `source=` the
document's label (as the placeholder's hint suggests) and across all labels, per document
and overall, and every miss with what came first instead.

The markdown goes to stdout and into docs/benchmarks.md between `<!-- retrieval:start -->`
and `<!-- retrieval:end -->`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import indexing` must find the package

from benchmarks import _docs  # noqa: E402
from indexing.chunker import chunk_document  # noqa: E402
from indexing.compressor import ResponseCompressor  # noqa: E402
from indexing.labels import LabelCounter  # noqa: E402
from indexing.search import format_search, location  # noqa: E402
from indexing.store import Hit, SessionStore  # noqa: E402
from indexing.text import one_line, sanitize  # noqa: E402

SECTION = "retrieval"
QUESTIONS = Path(__file__).resolve().parent / "retrieval_questions.json"
THRESHOLD = 16_384
TARGET_RECALL_AT_5 = 0.9
DEEP = 20  # how far down a miss is looked for


@dataclass(frozen=True)
class Source:
    """One document: where it comes from and the tool that would have returned it."""

    key: str
    path: Path
    tool: str
    man: bool = False


SOURCES = [
    Source("bash-man", Path("/usr/share/man/man1/bash.1.gz"), "shell__run_command", man=True),
    Source(
        "django-query",
        _docs.SITE_PACKAGES / "django" / "db" / "models" / "query.py",
        "files__read_text_file",
    ),
    Source(
        "glibc-changelog",
        Path("/usr/share/doc/libc6/changelog.Debian.gz"),
        "files__read_text_file",
    ),
    Source("package-lock", _docs.NODE_MODULES / ".package-lock.json", "files__read_text_file"),
    Source(
        "commander-readme", _docs.NODE_MODULES / "commander" / "Readme.md", "files__read_text_file"
    ),
]


@dataclass
class Indexed:
    source: Source
    label: str
    origin: str
    format: str
    lines: list[str]
    chunks: int
    size: int


@dataclass
class Outcome:
    doc: str
    question: str
    answer: str
    line: int | None = None  # None: the answer is not exactly one line (question broken)
    problem: str = ""
    rank_source: int | None = None  # 1-based rank with source=label, None if below DEEP
    rank_all: int | None = None
    first_hits: list[Hit] = field(default_factory=list)


def origin(path: Path) -> str:
    """Name the Debian package that owns `path`, or the repo directory it lives in."""
    if path.is_relative_to(ROOT):
        return "repo " + str(path.relative_to(ROOT)).split("/", 1)[0]
    done = subprocess.run(["dpkg", "-S", str(path)], capture_output=True, text=True, check=False)
    if done.returncode == 0 and ":" in done.stdout:
        return "Debian package " + done.stdout.split(":", 1)[0].strip()
    return "not from a package"


def load(source: Source) -> str:
    return _docs.render_man(source.path) if source.man else _docs.read_text(source.path)


def index_all(store: SessionStore) -> dict[str, Indexed]:
    compressor = ResponseCompressor(store, LabelCounter())
    indexed = {}
    for source in SOURCES:
        text = load(source)
        placeholder, stats = compressor.compress(source.tool, text, threshold=THRESHOLD)
        if placeholder is None or stats is None:
            raise RuntimeError(f"{source.path} was not indexed ({len(text)} chars)")
        document = chunk_document(sanitize(text))  # the lines IndexRead serves
        assert len(document.lines) == stats.lines
        indexed[source.key] = Indexed(
            source,
            stats.label,
            origin(source.path),
            str(store.document(stats.label).format),
            document.lines,
            stats.chunks,
            stats.original_bytes,
        )
    return indexed


def rank_of(hits: list[Hit], label: str, line: int) -> int | None:
    for rank, hit in enumerate(hits, start=1):
        if hit.label == label and hit.start_line <= line <= hit.end_line:
            return rank
    return None


def evaluate(store: SessionStore, indexed: dict[str, Indexed]) -> list[Outcome]:
    outcomes = []
    for entry in json.loads(QUESTIONS.read_text(encoding="utf-8"))["questions"]:
        outcome = Outcome(entry["doc"], entry["q"], entry["answer"])
        outcomes.append(outcome)
        document = indexed.get(outcome.doc)
        if document is None:
            outcome.problem = f"unknown document {outcome.doc!r}"
            continue
        lines = [n for n, text in enumerate(document.lines, start=1) if outcome.answer in text]
        if len(lines) != 1:
            outcome.problem = f"answer found on {len(lines)} lines, expected exactly 1"
            continue
        outcome.line = lines[0]
        scoped = store.search(outcome.question, source=document.label, limit=DEEP)
        outcome.rank_source = rank_of(scoped, document.label, outcome.line)
        outcome.rank_all = rank_of(
            store.search(outcome.question, limit=DEEP), document.label, outcome.line
        )
        outcome.first_hits = scoped[:2]
        format_search(store, [outcome.question], source=document.label)  # must not raise
    return outcomes


def recall(outcomes: list[Outcome], k: int, scoped: bool) -> float:
    valid = [o for o in outcomes if o.line is not None]
    if not valid:
        return 0.0
    found = [o for o in valid if (rank := o.rank_source if scoped else o.rank_all) and rank <= k]
    return len(found) / len(valid)


def report(indexed: dict[str, Indexed], outcomes: list[Outcome]) -> str:
    out = [
        "## Retrieval",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python benchmarks/retrieval.py`.",
        "",
        f"{len(outcomes)} questions ({QUESTIONS.name}) over {len(indexed)} real documents "
        "indexed into one `SessionStore` through `ResponseCompressor` (threshold "
        f"{THRESHOLD:,} bytes). A question counts as found at rank k when hit k of "
        "`store.search(question)` (what IndexSearch runs per query) is a chunk of the right "
        "document whose lines include the answer line. *scoped* = `source=` that document's "
        "label, as the placeholder suggests; *all* = no `source`, all five documents compete.",
        "",
        "| document | label | from | format | lines | chunks | questions "
        "| R@1 scoped | R@5 scoped | R@1 all | R@5 all |",
        "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key, doc in indexed.items():
        mine = [o for o in outcomes if o.doc == key]
        out.append(
            f"| {doc.source.path.name} | `{doc.label}` | {doc.origin} | {doc.format} "
            f"| {len(doc.lines):,} | {doc.chunks:,} | {len(mine)} "
            f"| {recall(mine, 1, True):.2f} | {recall(mine, 5, True):.2f} "
            f"| {recall(mine, 1, False):.2f} | {recall(mine, 5, False):.2f} |"
        )
    valid = [o for o in outcomes if o.line is not None]
    r5 = recall(outcomes, 5, True)
    out += [
        f"| **overall** | | | | | | {len(valid)} | **{recall(outcomes, 1, True):.2f}** "
        f"| **{r5:.2f}** | **{recall(outcomes, 1, False):.2f}** "
        f"| **{recall(outcomes, 5, False):.2f}** |",
        "",
        f"Target recall@5 >= {TARGET_RECALL_AT_5:g} (scoped): "
        + ("**met**" if r5 >= TARGET_RECALL_AT_5 else "**missed**")
        + f" ({r5:.2f}); across all labels {recall(outcomes, 5, False):.2f}.",
        "",
    ]
    broken = [o for o in outcomes if o.line is None]
    misses = [o for o in valid if not (o.rank_source and o.rank_source <= 5)]
    if misses:
        out += [
            "Misses (scoped; rank = where the answer chunk came within the top "
            f"{DEEP}, - if not at all):",
            "",
            "| document | question | answer line | rank | hit 1 instead |",
            "|---|---|---:|---:|---|",
        ]
        for o in misses:
            first = o.first_hits[0] if o.first_hits else None
            instead = f"{location(first)} — {one_line(first.title, 60)}" if first else "no hits"
            out.append(
                f"| {o.doc} | {_cell(o.question)} | {o.line} | {o.rank_source or '-'} "
                f"| {_cell(instead)} |"
            )
        out.append("")
    else:
        out += ["No misses within the top 5 (scoped).", ""]
    all_misses = [o for o in valid if not (o.rank_all and o.rank_all <= 5)]
    if all_misses:
        names = "; ".join(f"{o.doc}: {_cell(o.question)}" for o in all_misses)
        out += [f"Misses across all labels: {names}.", ""]
    for o in broken:
        out.append(f"- Question not checked ({o.doc}: {_cell(o.question)}): {o.problem}")
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--verbose", action="store_true", help="print every question's ranks")
    options = parser.parse_args()
    store = SessionStore()
    indexed = index_all(store)
    outcomes = evaluate(store, indexed)
    if options.verbose:
        for o in outcomes:
            print(
                f"{o.doc:17} L{o.line}  scoped={o.rank_source}  all={o.rank_all}  {o.question}",
                file=sys.stderr,
            )
    text = report(indexed, outcomes)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)
        print(f"updated {_docs.relative(_docs.DOCS)}", file=sys.stderr)


if __name__ == "__main__":
    main()
