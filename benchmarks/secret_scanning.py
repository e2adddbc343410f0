"""Secret scanning benchmark: the detector's recall and false positives, its speed, and
indexing throughput with masking on vs off.

Run from the repository root (about 1 minute; `--quick` about 20 s):

    .venv/bin/python benchmarks/secret_scanning.py [--quick] [--no-docs]

* recall and false positives: `indexing.engine.secrets.SecretScanner` on the generated corpus
  of `tests/fixtures/secret_corpus.py` (fake credentials in context, near-misses), and on real
  text of this machine (`benchmarks/_docs.py`: Markdown, JSON, package records, Python,
  logs, and the retrieval benchmark's documents), where every finding is a false positive;
* scanner speed: `SecretScanner.mask` on 1 MiB of each real format, as is and with the
  corpus' credentials spread through it (one every ~16 KiB);
* indexing throughput: what the gateway does with a large result, `mask_result_now` (masking
  on) then indexing it into a fresh store (`ResponseCompressor.prepare` and its writer),
  against indexing alone (masking off), on 1 MiB of each format with the credentials spread
  through it; on and off interleaved, medians over the repeats; target: on >= 0.9x off.

Markdown tables go to stdout and into docs/benchmarks.md between
`<!-- secret_scanning:start -->` and `<!-- secret_scanning:end -->`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[0:1] = [str(ROOT)]  # run as a script, `import indexing` must not find this file

import mcp_types as types  # noqa: E402

from benchmarks import _docs  # noqa: E402
from benchmarks.indexing import FORMATS, MIB, corpus, index_once, nbytes  # noqa: E402
from indexing.api.secret_masking import mask_result_now  # noqa: E402
from indexing.engine.secrets.scanner import SecretScanner  # noqa: E402
from tests.fixtures import secret_corpus  # noqa: E402

SECTION = "secret_scanning"
TARGET_RATIO = 0.9
SPREAD_EVERY = 16 * 1024
RETRIEVAL_DOCS = ROOT / "benchmarks" / "retrieval_docs"


def recall_rows(scanner: SecretScanner) -> tuple[list[list[str]], int, int]:
    """Per kind: secrets in the corpus, masked exactly; and the totals."""
    total: Counter[str] = Counter()
    found: Counter[str] = Counter()
    for item in secret_corpus.secrets():
        total[item.kind] += 1
        masked = scanner.mask(item.text)
        if item.secret not in masked.text and masked.counts == Counter({item.kind: 1}):
            found[item.kind] += 1
    rows = [[kind, str(total[kind]), str(found[kind])] for kind in sorted(total)]
    return rows, sum(total.values()), sum(found.values())


def false_positives(scanner: SecretScanner) -> tuple[int, int]:
    """Near-misses of the corpus, and those the scanner flagged."""
    near = secret_corpus.near_misses()
    return len(near), sum(1 for text in near if scanner.find(text))


def real_documents() -> dict[str, str]:
    """Real text of this machine: 1 MiB of each format, and the retrieval documents."""
    texts = {f"{kind}, 1 MiB": corpus(kind, MIB) for kind in FORMATS}
    for path in sorted(RETRIEVAL_DOCS.iterdir()):
        if path.is_file():
            texts[f"retrieval_docs/{path.name}"] = _docs.read_text(path)
    return texts


def with_secrets(text: str) -> tuple[str, int]:
    """`text` with the corpus' credentials put in at line ends, one every ~16 KiB (none in a
    text of one line, such as compact JSON records)."""
    if text.count("\n") < 2:
        return text, 0
    secrets = [item.text for item in secret_corpus.secrets()]
    parts, placed, position = [], 0, 0
    while position < len(text):
        cut = text.find("\n", position + SPREAD_EVERY)
        cut = len(text) if cut < 0 else cut + 1
        parts.append(text[position:cut])
        parts.append(secrets[placed % len(secrets)] + "\n")
        placed += 1
        position = cut
    return "".join(parts), placed


def median_seconds(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def speed_rows(scanner: SecretScanner, repeats: int) -> list[list[str]]:
    rows = []
    for kind in FORMATS:
        plain = corpus(kind, MIB, skip=1)
        seeded, placed = with_secrets(plain)
        texts = [(kind, plain)] + ([(f"{kind} + {placed} secrets", seeded)] if placed else [])
        for name, text in texts:
            seconds = median_seconds(lambda text=text: scanner.mask(text), repeats)
            rows.append([name, f"{nbytes(text) / MIB / seconds:,.0f}", f"{seconds * 1000:.2f}"])
    return rows


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds (every thread of this process: the store's writer too) of `work`.

    CPU time is what another process on a busy machine does not inflate."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def masked_then_indexed(result: types.CallToolResult, expected: int) -> None:
    """Mask a result (masking on), then index its text."""
    masked, counts = mask_result_now(result)
    index_once(masked.content[0].text)
    assert counts.total() >= expected, (counts.total(), expected)


def indexing_rows(repeats: int) -> tuple[list[list[str]], dict[bool, list[float]]]:
    """Indexing with masking off and on, interleaved, on each format as is and with the
    corpus' credentials spread through it; medians of each. The ratios are CPU time's."""
    rows: list[list[str]] = []
    ratios: dict[bool, list[float]] = {False: [], True: []}  # with credentials put in?
    for kind in FORMATS:
        plain = corpus(kind, MIB, skip=2)
        seeded, placed = with_secrets(plain)
        cases = [(kind, plain, 0)]
        if placed:
            cases.append((f"{kind} + {placed} secrets", seeded, placed))
        for name, text, expected in cases:
            result = types.CallToolResult(content=[types.TextContent(type="text", text=text)])
            off, on = [], []
            for repeat in range(repeats):  # interleaved, each going first every other time
                runs = [
                    (off, lambda text=text: index_once(text)),
                    (
                        on,
                        lambda result=result, expected=expected: masked_then_indexed(
                            result, expected
                        ),
                    ),
                ]
                for samples, work in runs[:: 1 if repeat % 2 else -1]:
                    samples.append(timed(work))
            size = nbytes(text) / MIB
            off_wall, off_cpu = (statistics.median(times) for times in zip(*off, strict=True))
            on_wall, on_cpu = (statistics.median(times) for times in zip(*on, strict=True))
            ratios[expected > 0].append(off_cpu / on_cpu)
            rows.append(
                [
                    name,
                    f"{size / off_cpu:.1f}",
                    f"{size / on_cpu:.1f}",
                    f"**{off_cpu / on_cpu:.3f}x**",
                    f"{size / off_wall:.1f}",
                    f"{size / on_wall:.1f}",
                    f"{off_wall / on_wall:.3f}x",
                ]
            )
    return rows, ratios


def verdict(ratio: float) -> str:
    return "met" if ratio >= TARGET_RATIO else "missed"


def report(options: argparse.Namespace) -> str:
    scanner = SecretScanner()
    recall, total, found = recall_rows(scanner)
    near, flagged = false_positives(scanner)
    documents = real_documents()
    findings = {name: scanner.find(text) for name, text in documents.items()}
    real_bytes = sum(nbytes(text) for text in documents.values())
    real_flagged = sum(len(found) for found in findings.values())
    where = Counter(f"{item.kind} in {name}" for name, found in findings.items() for item in found)
    real_detail = "; ".join(f"{count} {what}" for what, count in sorted(where.items()))
    speed = speed_rows(scanner, options.repeats)
    indexing, ratios = indexing_rows(options.repeats)
    as_is, seeded = min(ratios[False]), min(ratios[True])
    command = "benchmarks/secret_scanning.py" + (" --quick" if options.quick else "")
    lines = [
        "## Secret scanning",
        "",
        f"Run {_docs.machine()}, with `.venv/bin/python {command}`.",
        "",
        f"**Recall: {found}/{total} ({found / total:.0%})** of the corpus' fake credentials "
        f"masked exactly (each alone in its context, with its kind). **False positives: "
        f"{flagged}/{near}** near-misses (hashes, git SHAs, UUIDs, base64 images, lock file "
        f"checksums, public keys, certificates, ids, URLs without passwords), and "
        f"**{real_flagged}** findings in {real_bytes / MIB:.1f} MiB of real text "
        f"({len(documents)} documents: 1 MiB of each indexing format and the retrieval "
        f"benchmark's documents){': ' + real_detail if real_detail else ''}. Corpus: "
        "`tests/fixtures/secret_corpus.py` (generated, seed 38).",
        "",
        _docs.markdown_table(["kind", "in corpus", "masked"], recall, "lrr"),
        "",
        "### Scanner speed (1 MiB of real text)",
        "",
        _docs.markdown_table(["text", "MB/s", "ms"], speed, "lrr"),
        "",
        "### Indexing throughput, masking on vs off",
        "",
        f"1 MiB of each format as is, and with the corpus' credentials put in one every "
        f"{SPREAD_EVERY // 1024} KiB (at line ends: not in the records, one line of compact "
        "JSON); off: indexed; on: masked (`mask_result_now`), then "
        f"indexed. Medians of {options.repeats} interleaved runs each, in CPU time (the "
        "process's, the store's writer thread included: what other work on a shared machine "
        f"does not inflate) and wall time. Target: on >= {TARGET_RATIO}x off in CPU time. "
        f"On real text as is: **{verdict(as_is)}** (lowest {as_is:.3f}x). With a credential "
        f"every {SPREAD_EVERY // 1024} KiB, a stress case (the real text above holds "
        f"{real_flagged} in {real_bytes / MIB:.0f} MiB): "
        f"**{verdict(seeded)}** (lowest {seeded:.3f}x).",
        "",
        _docs.markdown_table(
            [
                "text",
                "off MB/s (CPU)",
                "on MB/s (CPU)",
                "on / off (CPU)",
                "off MB/s (wall)",
                "on MB/s (wall)",
                "on / off (wall)",
            ],
            indexing,
            "lrrrrrr",
        ),
    ]
    return "\n".join(lines)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/benchmarks.md")
    options = parser.parse_args()
    options.repeats = 3 if options.quick else 9
    return options


def main() -> None:
    options = parse_args()
    text = report(options)
    print(text)
    if not options.no_docs:
        _docs.write_section(SECTION, text)


if __name__ == "__main__":
    main()
