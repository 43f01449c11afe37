"""One row of the performance table, and the table itself."""

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


class NotMeasuredError(Exception):
    """A section that cannot run here: its engine, server or extra is absent (the reason says
    which). ``python -m bench`` prints ``<section>: not measured: <reason>`` and goes on."""


@dataclass(frozen=True)
class Figure:
    """A measurement of ours beside its reference, measured side by side in one run.

    ``ours`` is None where only the reference is measured yet (printed as ``—``).
    """

    area: str
    measure: str
    ours: float | None
    reference: float
    unit: str
    goal: str
    reference_name: str

    @property
    def ratio(self) -> float | None:
        """ours / reference, or None without ours."""
        if self.ours is None:
            return None
        return self.ours / self.reference if self.reference else float("inf")


def short() -> bool:
    """Whether ``SUTURA_BENCH_SHORT=1`` asks for a smoke run (tiny sizes, few repeats)."""
    return os.environ.get("SUTURA_BENCH_SHORT") == "1"


def median_seconds(fn: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls of ``fn`` (after one warm-up call)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def render(figures: list[Figure]) -> str:
    """The table, one figure a line."""
    header = _line("area", "measure", "ours", "reference", "unit", "ratio", "goal", "reference is")
    rows = [
        _line(
            f.area,
            f.measure,
            _number(f.ours, 3),
            f"{f.reference:.3f}",
            f.unit,
            _number(f.ratio, 2),
            f.goal,
            f.reference_name,
        )
        for f in figures
    ]
    return "\n".join([header, "-" * len(header), *rows])


def _number(value: float | None, places: int) -> str:
    return "—" if value is None else f"{value:.{places}f}"


def _line(*cells: str) -> str:
    area, measure, ours, reference, unit, ratio, goal, name = cells
    numbers = f"{ours:>12} {reference:>12} {unit:<6} {ratio:>7}"
    return f"{area:<10} {measure:<46} {numbers}  {goal:<10} {name}"
