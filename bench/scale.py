"""Catalog scale: load (parse, check, pin), startup (open, check models, reproduce anchors), and
``sutura mcp``'s cold start to a first answer (spawn, handshake, start, one question).

A generated catalog (``tests.scale_catalog``: one model per ten metrics, relationships,
glossary terms, caveats, worked questions, an anchor on every metric, DuckDB data) of 100,
1,000 and 2,000 metrics, written once per machine under the temp directory. Each time is the
median of a few runs; each is shown beside the time at the smallest size scaled linearly (a
ratio above 1 means worse than linear). Goals: 2,000 metrics load in 2 s and start in 10 s,
and ``sutura mcp`` answers its first question within 10 s of being spawned. Then ``sutura
check`` (every model checked, every anchor reproduced) and ``sutura catalog`` (no data read) on
2,000 anchored metrics, beside the same command on the example (20,000 orders), in turns;
goals: check ≤ 2 s, catalog ≤ 1 s, each as commands run one after another run it (the front
matters read before, kept in the user's cache directory); beside it, ``sutura catalog`` reading
every front matter's YAML, as the first read of a catalog does. The CPU time of a spawned
process is its own (a child's, once it has ended): on a shared machine, the steadier figure.

A section of ``python -m bench``; ``python -m bench.scale`` prints it alone.
"""

import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import anyio
from returns.pipeline import is_successful
from tests.scale_catalog import metric_name, write_scale_catalog

from bench.answer import example_dir
from bench.bytecode import compiled_package
from bench.mcp import HANDSHAKE, SUTURA, _line, _spawned, _until
from bench.serving import environ, serving
from bench.table import Figure, render, short
from sutura.boundary.loading import load

SIZES = (100, 1_000, 2_000)
SHORT_SIZES = (10, 20, 40)
GOALS = {"load": 2.0, "startup": 10.0, "MCP first answer": 10.0}


def scale_dir(metrics: int) -> Path:
    """The generated catalog of ``metrics`` metrics, written once per machine."""
    target = Path(tempfile.gettempdir()) / f"sutura-bench-scale-{metrics}"
    if not (target / "base.yaml").exists():
        write_scale_catalog(
            target, metrics=metrics, models=max(2, metrics // 10), anchors=True, data=True
        )
    return target


def _median(
    run: Callable[[], object], repeat: int, cpu_time: Callable[[], float] = time.process_time
) -> tuple[float, float]:
    """The median wall time and the median CPU time (``cpu_time``: this process, every thread,
    by default) of ``repeat`` runs, after one warm-up run. On a shared machine the CPU time is
    the steadier figure."""
    run()
    walls, cpus = [], []
    for _ in range(repeat):
        began, cpu = time.perf_counter(), cpu_time()
        run()
        walls.append(time.perf_counter() - began)
        cpus.append(cpu_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def _children_cpu() -> float:
    """CPU time of this process's children that have ended."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load(config: Path) -> None:
    if not is_successful(load(environ(config))):
        raise RuntimeError(f"the generated catalog at {config} does not load")


def _startup(config: Path) -> None:
    async def opened() -> None:
        async with serving(config):
            pass

    anyio.run(opened)


def _first_answer(config: Path) -> None:
    """Spawn ``sutura mcp`` over ``config`` and ask its first metric for a year, with the
    handshake; it must answer."""
    question = {
        "metrics": [metric_name(0)],
        "grain": "year",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
    }
    params = {"name": "ask_metric", "arguments": question}
    ask = _line({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    with _spawned([str(SUTURA), "mcp"], config) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(HANDSHAKE + ask)
        process.stdin.flush()
        reply = _until(process.stdout, 2)
    if "result" not in reply or reply["result"].get("isError"):
        raise RuntimeError(f"sutura mcp over {config} did not answer: {json.dumps(reply)[:300]}")


def _command(config: Path, command: str, **settings: str) -> tuple[float, float]:
    """Seconds of wall time and of CPU (the child's) that ``sutura COMMAND`` took on ``config``
    (with ``settings``: more ``SUTURA__`` variables)."""
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(config), **settings}
    cpu, began = _children_cpu(), time.perf_counter()
    subprocess.run([str(SUTURA), command], env=environ, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=300)  # fmt: skip
    return time.perf_counter() - began, _children_cpu() - cpu


COMMANDS = {"check": 2.0, "catalog": 1.0}
"""The commands timed on the largest catalog, and their goals in seconds."""


def _commands(largest: Path, example: Path, rounds: int) -> list[Figure]:
    """``sutura check`` and ``sutura catalog`` on the largest catalog beside the same command
    on the example, in turns: wall and CPU (median of ``rounds``)."""
    seen: dict[tuple[str, Path], list[tuple[float, float]]] = {}
    uncached: list[tuple[float, float]] = []
    _command(largest, "catalog")  # warm: the files in the page cache, the bytecode written
    for _ in range(rounds):
        for command in COMMANDS:
            for config in (largest, example):
                seen.setdefault((command, config), []).append(_command(config, command))
        uncached.append(_command(largest, "catalog", SUTURA__CATALOG__CACHE="false"))
    figures: list[Figure] = []
    for command, goal in COMMANDS.items():
        for index, kind in enumerate(("wall", "CPU")):
            ours = statistics.median(run[index] for run in seen[command, largest])
            reference = statistics.median(run[index] for run in seen[command, example])
            figures.append(Figure("scale", f"sutura {command} ({kind}), {largest.name}", ours,
                                  reference, "s", f"≤ {goal:g} s" if kind == "wall" else "report",
                                  f"sutura {command} on the example"))  # fmt: skip
    cached = seen["catalog", largest]
    for index, kind in enumerate(("wall", "CPU")):
        figures.append(Figure("scale", f"sutura catalog ({kind}), every front matter's YAML read",
                              statistics.median(run[index] for run in uncached),
                              statistics.median(run[index] for run in cached), "s", "report",
                              "the same, front matters read before (cached)"))  # fmt: skip
    return figures


def measure() -> list[Figure]:
    """Load and startup times at each size, beside the smallest size's time scaled linearly;
    then ``sutura mcp``'s first answer at each size, beside the service's startup alone; then
    ``sutura check`` and ``sutura catalog`` on the largest, beside the example's."""
    sizes = SHORT_SIZES if short() else SIZES
    compiled_package()
    repeat = 3
    figures: list[Figure] = []
    started: dict[int, tuple[float, float]] = {}
    for stage, run in (("load", _load), ("startup", _startup)):
        smallest = (0.0, 0.0)
        for metrics in sizes:
            config = scale_dir(metrics)
            wall, cpu = _median(partial(run, config), repeat)
            if stage == "startup":
                started[metrics] = (wall, cpu)
            smallest = smallest if smallest[0] else (wall, cpu)
            goal = f"≤ {GOALS[stage]:g} s" if metrics == SIZES[-1] else "≤ 1.0×"
            for kind, seconds, first in (("wall", wall, smallest[0]), ("CPU", cpu, smallest[1])):
                reference = f"{sizes[0]} metrics' {kind} time × {metrics // sizes[0]}"
                figures.append(
                    _figure(
                        stage, kind, metrics, seconds, first * metrics / sizes[0], goal, reference
                    )
                )
    stage = "MCP first answer"
    for metrics in sizes:
        wall, cpu = _median(partial(_first_answer, scale_dir(metrics)), repeat, _children_cpu)
        goal = f"≤ {GOALS[stage]:g} s" if metrics == SIZES[-1] else "report"
        for kind, seconds, alone in (
            ("wall", wall, started[metrics][0]),
            ("CPU", cpu, started[metrics][1]),
        ):
            reference = f"startup ({kind}) alone, same catalog"
            figures.append(_figure(stage, kind, metrics, seconds, alone, goal, reference))
    figures += _commands(scale_dir(sizes[-1]), example_dir(20_000), repeat)
    return figures


def _figure(
    stage: str, kind: str, metrics: int, seconds: float, reference: float, goal: str, of: str
) -> Figure:
    models = max(2, metrics // 10)
    measure = f"{stage} ({kind}): {metrics:,} anchored metrics, {models} models"
    return Figure(
        "scale", measure, seconds, reference, "s", goal if kind == "wall" else "report", of
    )


def main() -> None:
    """Print this section of the performance table."""
    print(render(measure()))


if __name__ == "__main__":
    main()
