"""Render time of an answer's halves against msgspec's JSON encoding of the same rows.

A 100k x 10 answer of short ASCII strings, clean and with 1% of its cells replaced by short
hostile values from the injection corpus. Each time is the fastest of a few runs, and each is
reported as a ratio to ``msgspec.json.encode(rows)`` of the very same rows (ratios, not
promises: the machine cancels out). Goals: text <= 5x clean, <= 10x with 1% hostile;
structured <= 1.5x.

A section of ``python -m bench``; ``python -m bench.render`` prints it alone.
"""

import random
import time
from collections.abc import Callable, Sequence
from functools import partial

import msgspec
from returns.pipeline import is_successful

from bench.table import Figure, render, short
from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Provenance
from sutura.core.text.render import render_answer
from sutura.core.text.untrusted import CELLS
from sutura.core.tool.codec import encode

ROWS = 100_000
COLUMNS = 10
HOSTILE_RATE = 0.01
GOALS = {
    "text": {"clean": 5.0, "1% hostile": 10.0},
    "structured": {"clean": 1.5, "1% hostile": 1.5},
}
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-."


def _fastest(runs: Sequence[Callable[[], object]], repeats: int) -> list[float]:
    """The fastest CPU time of each run, over ``repeats`` consecutive calls after a warm-up.

    CPU time of this process, not wall time, so other processes on a shared machine cost the
    ratio little; consecutive calls, so one run's freed memory does not tax the next run.
    """
    best: list[float] = []
    for run in runs:
        run()
        times = []
        for _ in range(repeats):
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        best.append(min(times))
    return best


def _answer(rows: list[list[str | None]]) -> Answer:
    provenance = Provenance(
        time_zone="UTC",
        definition_version="v1",
        definition_digest="ab" * 32,
        metric_digests=[MetricDigest(metric="revenue", digest="cd" * 32)],
        executed_as=[ExecutedAs(source="main", posture="shared-service-user")],
    )
    return Answer(columns=[f"c{i}" for i in range(COLUMNS)], rows=rows, provenance=provenance)


def tables(seed: int = 7) -> tuple[list[list[str | None]], list[list[str | None]]]:
    """The clean table and the same table with 1% of its cells hostile."""
    rng = random.Random(seed)
    rows = 1_000 if short() else ROWS
    clean: list[list[str | None]] = [
        ["".join(rng.choices(_ALPHABET, k=rng.randint(3, 12))) for _ in range(COLUMNS)]
        for _ in range(rows)
    ]
    hostile_values = [c.value for c in CELLS if len(c.value) <= 40 and "surrogate" not in c.name]
    hostile = [list(row) for row in clean]
    for row in hostile:
        for index in range(COLUMNS):
            if rng.random() < HOSTILE_RATE:
                row[index] = rng.choice(hostile_values)
    return clean, hostile


def _text(answer: Answer) -> str:
    rendered = render_answer(answer)
    if not is_successful(rendered):
        raise RuntimeError("the benchmark answer was refused")
    return rendered.unwrap()


def _structured(answer: Answer) -> bytes:
    return encode(answer).unwrap()


def measure(repeats: int = 7) -> list[Figure]:
    """Each half's render time beside ``msgspec.json.encode`` of the same rows."""
    repeats = 1 if short() else repeats
    figures: list[Figure] = []
    for label, rows in zip(("clean", "1% hostile"), tables(), strict=True):
        answer = _answer(rows)
        if not is_successful(render_answer(answer)) or not is_successful(encode(answer)):
            raise SystemExit(f"the {label} answer was refused; nothing to measure")
        runs: list[Callable[[], object]] = [partial(msgspec.json.encode, rows)]
        runs += [partial(render_answer, answer), partial(encode, answer)]
        baseline, text, structured = _fastest(runs, repeats)
        for half, seconds in (("text", text), ("structured", structured)):
            figures.append(
                Figure(
                    "render",
                    f"{half} half, {len(rows) // 1000}k×{COLUMNS} cells, {label}",
                    seconds * 1e3,
                    baseline * 1e3,
                    "ms",
                    f"≤ {GOALS[half][label]:g}×",
                    "msgspec.json.encode(rows)",
                )
            )
    return figures


def main() -> None:
    """Print this section of the performance table (each figure with its ratio and goal)."""
    print(render(measure()))


if __name__ == "__main__":
    main()
