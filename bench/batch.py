"""Batch rendering: ``sutura render`` of a generated JSON Lines file, in a subprocess.

Throughput (MB/s and records/s) beside a bare reference that reads the same file line by line
and re-encodes each line with ``msgspec.json`` (no validation, no text half); goal: at least a
third of the reference's throughput. ``sutura render`` runs as a user runs it (its worker
processes on every available processor); a breakdown row shows it in one process
(``--jobs 1``). Each is run ``ROUNDS`` times, interleaved, and the fastest run of each is kept:
on a shared machine a slow run is the machine's, not the program's. Peak RSS is the peak sum
over the child and every process under it, sampled by a small launcher (see ``_run_child``),
and is shown beside the same run on an eighth of the input: memory stays flat as the input
grows.

The input is generated once per size under the temp directory: 1 000 distinct records (answers
of 24 rows, 1% hostile cells, one refusal in ten) repeated up to ``SUTURA_BENCH_BATCH_MB``
megabytes (default 1024).
"""

import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

from bench.table import Figure, short
from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Outcome, Provenance, Refused
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.text.untrusted import CELLS
from sutura.core.tool.codec import halves_of

MEGABYTE: Final = 1 << 20
ROUNDS: Final = 3
GOAL_THROUGHPUT: Final = "≥ 0.33×"
GOAL_RSS_MB: Final = 200
SUTURA: Final = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
REFERENCE: Final = """
import sys, msgspec
decode, encode, out = msgspec.json.decode, msgspec.json.encode, sys.stdout.buffer
with open(sys.argv[1], "rb") as source:
    for line in source:
        out.write(encode(decode(line)) + b"\\n")
"""
REFERENCE_NAME: Final = "msgspec decode+encode per line"
LAUNCHER: Final = """
import os, subprocess, sys, time
def tree_kib(root):
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/status") as status:
                total += next((int(l.split()[1]) for l in status if l.startswith("VmRSS:")), 0)
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as children:
                    todo += [int(child) for child in children.read().split()]
        except (OSError, ValueError):
            pass
    return total
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peak = 0
while True:
    pid, status, usage = os.wait4(child.pid, os.WNOHANG)
    if pid:
        break
    peak = max(peak, tree_kib(child.pid))
    time.sleep(0.01)
print(os.waitstatus_to_exitcode(status), time.perf_counter() - started, max(peak, usage.ru_maxrss))
"""
_HOSTILE: Final = [c.value for c in CELLS if len(c.value) <= 40 and "surrogate" not in c.name]


def size_mb() -> int:
    """The size of the generated input, from ``SUTURA_BENCH_BATCH_MB`` (default 1024)."""
    return max(1, int(os.environ.get("SUTURA_BENCH_BATCH_MB", "1024")))


def _outcome(rng: random.Random, index: int) -> Outcome:
    if index % 10 == 9:
        return Refused(reason=refusal(rng.choice(list(RefusalCode))))
    rows: list[list[str | None]] = [
        [f"2024-{month:02d}-01", rng.choice(["east", "north", "south", "west"]), None, ""]
        for month in range(1, 13)
        for _ in range(2)
    ]
    for row in rows:
        row[2] = rng.choice(_HOSTILE) if rng.random() < 0.04 else f"{rng.randint(0, 10**7)}.25"
        row[3] = str(rng.randint(0, 5000))
    provenance = Provenance(
        time_zone="UTC",
        definition_version="example-1",
        definition_digest="e1" * 32,
        metric_digests=[MetricDigest(metric="revenue", digest="bf" * 32)],
        executed_as=[ExecutedAs(source="main", posture="shared-service-user")],
    )
    columns = ["period", "region", "revenue", "order_count"]
    return Answer(columns=columns, rows=rows, provenance=provenance)


def input_file(megabytes: int) -> tuple[Path, int]:
    """The generated JSON Lines file of about ``megabytes`` MB and its record count."""
    target = Path(tempfile.gettempdir()) / f"sutura-bench-batch-{megabytes}mb.jsonl"
    count_file = target.with_suffix(".count")
    if not (target.exists() and count_file.exists()):
        rng = random.Random(8)
        lines = [halves_of(_outcome(rng, i)).structured + b"\n" for i in range(1000)]
        block = b"".join(lines)
        repeats = max(1, megabytes * MEGABYTE // len(block))
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for _ in range(repeats):
                out.write(block)
        partial.replace(target)
        count_file.write_text(str(repeats * len(lines)))
    return target, int(count_file.read_text())


def _run_child(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one child writing to /dev/null; it must exit 0.

    A small launcher process starts the child and, every 10 ms until it exits, sums the
    resident memory of the child and every process under it (``sutura render``'s worker
    processes), keeping the peak (or the child's own ``ru_maxrss`` when that is larger). A
    child forked straight from this (large) process would report this process's size, which
    Linux keeps across ``exec``.
    """
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *argv], capture_output=True, text=True, check=True
    )
    code, seconds, max_rss_kib = done.stdout.split()
    if code != "0":
        raise RuntimeError(f"{argv[-1]}: exit {code}")
    return float(seconds), int(max_rss_kib) / 1024


def _figure(measure: str, ours: float, reference: float, unit: str, goal: str) -> Figure:
    return Figure("batch", measure, ours, reference, unit, goal, REFERENCE_NAME)


def measure() -> list[Figure]:
    """Throughput and peak memory of ``sutura render`` beside the bare re-encoding reference."""
    megabytes = size_mb()
    path, records = input_file(megabytes)
    small_path, _ = input_file(max(1, megabytes // 8))
    size = path.stat().st_size / MEGABYTE
    runs = [
        (
            _run_child([*SUTURA, "render", str(path)]),
            _run_child([sys.executable, "-c", REFERENCE, str(path)]),
            _run_child([*SUTURA, "render", "--jobs", "1", str(path)]),
        )
        for _ in range(1 if short() else ROUNDS)
    ]
    ours, ours_rss = min(o for o, _, _ in runs)
    bare, bare_rss = min(b for _, b, _ in runs)
    alone, alone_rss = min(a for _, _, a in runs)
    _, small_rss = _run_child([*SUTURA, "render", str(small_path)])
    label = f"{size:.0f} MB JSONL"
    flat = Figure(
        "batch",
        f"peak RSS, {label} vs an eighth of it",
        ours_rss,
        small_rss,
        "MB",
        "≤ 1.10×",
        "sutura render, 1/8 of the input",
    )
    return [
        _figure(
            f"render {label} → text, MB/s (best of {len(runs)})",
            size / ours,
            size / bare,
            "MB/s",
            GOAL_THROUGHPUT,
        ),
        _figure(
            f"render {label} → text, records/s",
            records / ours,
            records / bare,
            "rec/s",
            GOAL_THROUGHPUT,
        ),
        _figure(
            f"render {label} → text in one process (--jobs 1), MB/s",
            size / alone,
            size / bare,
            "MB/s",
            "breakdown",
        ),
        _figure(
            f"peak RSS rendering {label}, all processes",
            ours_rss,
            bare_rss,
            "MB",
            f"≤ {GOAL_RSS_MB} MB",
        ),
        _figure(
            f"peak RSS rendering {label} in one process", alone_rss, bare_rss, "MB", "breakdown"
        ),
        flat,
    ]
