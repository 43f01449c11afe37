"""Catalog scale: load (parse, check, pin) and startup (open, check models, reproduce anchors).

A generated catalog (``tests.scale_catalog``: one model per ten metrics, relationships,
glossary terms, caveats, worked questions, an anchor on every metric, DuckDB data) of 100,
1,000 and 2,000 metrics, written once per machine under the temp directory. Each time is the
median of a few runs; each is shown beside the time at the smallest size scaled linearly (a
ratio above 1 means worse than linear). Goals: 2,000 metrics load in 2 s and start in 10 s.

A section of ``python -m bench``; ``python -m bench.scale`` prints it alone.
"""

import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import anyio
from returns.pipeline import is_successful
from tests.scale_catalog import write_scale_catalog

from bench.serving import environ, serving
from bench.table import Figure, render, short
from sutura.boundary.startup import load

SIZES = (100, 1_000, 2_000)
SHORT_SIZES = (10, 20, 40)
GOALS = {"load": 2.0, "startup": 10.0}


def scale_dir(metrics: int) -> Path:
    """The generated catalog of ``metrics`` metrics, written once per machine."""
    target = Path(tempfile.gettempdir()) / f"sutura-bench-scale-{metrics}"
    if not (target / "base.yaml").exists():
        write_scale_catalog(
            target, metrics=metrics, models=max(2, metrics // 10), anchors=True, data=True
        )
    return target


def _median(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The median wall time and the median CPU time (this process, every thread) of ``repeat``
    runs, after one warm-up run. On a shared machine the CPU time is the steadier figure."""
    run()
    walls, cpus = [], []
    for _ in range(repeat):
        began, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - began)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _load(config: Path) -> None:
    if not is_successful(load(environ(config))):
        raise RuntimeError(f"the generated catalog at {config} does not load")


def _startup(config: Path) -> None:
    async def opened() -> None:
        async with serving(config):
            pass

    anyio.run(opened)


def measure() -> list[Figure]:
    """Load and startup times at each size, beside the smallest size's time scaled linearly."""
    sizes = SHORT_SIZES if short() else SIZES
    repeat = 3
    figures: list[Figure] = []
    for stage, run in (("load", _load), ("startup", _startup)):
        smallest = (0.0, 0.0)
        for metrics in sizes:
            config = scale_dir(metrics)
            wall, cpu = _median(partial(run, config), repeat)
            smallest = smallest if smallest[0] else (wall, cpu)
            goal = f"≤ {GOALS[stage]:g} s" if metrics == SIZES[-1] else "≤ 1.0×"
            models = max(2, metrics // 10)
            for kind, seconds, first in (("wall", wall, smallest[0]), ("CPU", cpu, smallest[1])):
                figures.append(
                    Figure(
                        "scale",
                        f"{stage} ({kind}): {metrics:,} anchored metrics, {models} models",
                        seconds,
                        first * metrics / sizes[0],
                        "s",
                        goal if kind == "wall" else "report",
                        f"{sizes[0]} metrics' {kind} time × {metrics // sizes[0]}",
                    )
                )
    return figures


def main() -> None:
    """Print this section of the performance table."""
    print(render(measure()))


if __name__ == "__main__":
    main()
