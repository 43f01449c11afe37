"""Where a warm answer's time goes: each stage of ``Service.call`` beside raw DuckDB.

The bench question on the 1M-row example, in-process and warm, measured interleaved (each
round times every stage once, then the whole call, then the same SQL run raw on its own
read-only DuckDB connection), so every figure sees the same machine. The stages are those of
:meth:`sutura.boundary.service.Service.call`: decoding the arguments, resolving and compiling
the question (memoised per catalog and question), running it on the source (its thread hop
included), shaping the rows, the provenance, and both halves. The transports' own cost
(JSON-RPC over stdio, HTTP) is in the ``mcp`` and ``http`` sections.

A section of ``python -m bench``; ``python -m bench.stages`` prints it alone.
"""

import statistics
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import duckdb
from returns.pipeline import is_successful
from returns.result import Result

from bench.answer import BENCH_QUESTION, example_dir
from bench.serving import ask, serving
from bench.table import Figure, render, short
from sutura.boundary.loading import utc_today
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import run_certified
from sutura.core.nouns.answer import Answer, ExecutedAs
from sutura.core.nouns.question import Question, QuestionError, decode_question_json
from sutura.core.nouns.refusal import Refusal
from sutura.core.outcome.provenance import provenance_for
from sutura.core.sql.planning import Plan, plan_question
from sutura.core.sql.shape import shape_rows
from sutura.core.tool.codec import outcome_halves

ROUNDS = 30
STAGES = ("decode", "resolve + compile", "run on the source", "shape", "provenance", "halves")


def measure() -> list[Figure]:
    """Each stage's median time, the whole call's and raw DuckDB's, as ratios to raw DuckDB."""
    config = example_dir(10_000 if short() else 1_000_000)
    times = anyio.run(_rounds, config, 3 if short() else ROUNDS)
    raw = statistics.median(times["raw DuckDB"])
    figures = [
        Figure(
            "stages",
            f"{name} (median)",
            1e3 * statistics.median(times[name]),
            1e3 * raw,
            "ms",
            "report",
            "raw DuckDB, same SQL",
        )
        for name in STAGES
    ]
    overhead = statistics.median(times["the whole call"]) - raw
    figures.append(
        Figure(
            "stages",
            "the whole call, over raw DuckDB",
            1e3 * statistics.median(times["the whole call"]),
            1e3 * raw,
            "ms",
            "≤ 1.25×",
            f"raw DuckDB; overhead {1e3 * overhead:.2f} ms",
        )
    )
    return figures


async def _rounds(config: Path, rounds: int) -> dict[str, list[float]]:
    names = (*STAGES, "the whole call", "raw DuckDB")
    times: dict[str, list[float]] = {name: [] for name in names}
    async with serving(config) as service:
        question = decode_question_json(BENCH_QUESTION).unwrap()
        _, compiled = _plan(service, question).unwrap()
        raw = duckdb.connect(str(config / "data" / "example.duckdb"), read_only=True)
        await ask(service, question)  # warm
        for _ in range(rounds):
            await _stages(service, times)
            began = time.perf_counter()
            await ask(service, question)
            times["the whole call"].append(time.perf_counter() - began)
            times["raw DuckDB"].append(
                _timed(lambda: raw.execute(compiled.sql, list(compiled.params)).fetchall())
            )
        raw.close()
    return times


def _timed(run: Callable[[], object]) -> float:
    began = time.perf_counter()
    run()
    return time.perf_counter() - began


async def _stages(service: Service, times: dict[str, list[float]]) -> None:
    began = time.perf_counter()
    question = decode_question_json(BENCH_QUESTION).unwrap()
    times["decode"].append(time.perf_counter() - began)
    began = time.perf_counter()
    planned = _plan(service, question)
    times["resolve + compile"].append(time.perf_counter() - began)
    resolved, compiled = planned.unwrap()
    source = service.sources[compiled.source]
    began = time.perf_counter()
    rows = await run_certified(
        source, compiled, deadline_seconds=30.0, max_rows=service.settings.limits.max_rows
    )
    times["run on the source"].append(time.perf_counter() - began)
    began = time.perf_counter()
    shaped = rows.bind(lambda fetched: shape_rows(compiled, fetched))
    times["shape"].append(time.perf_counter() - began)
    if not is_successful(shaped):
        raise RuntimeError("the bench question was refused")
    began = time.perf_counter()
    executed = [ExecutedAs(source=source.alias, posture=source.posture)]
    provenance = provenance_for(service.pinned, resolved.metric_names, executed)
    times["provenance"].append(time.perf_counter() - began)
    answer = Answer(columns=list(compiled.columns), rows=shaped.unwrap(), provenance=provenance)
    began = time.perf_counter()
    halves = outcome_halves(answer)
    times["halves"].append(time.perf_counter() - began)
    if not is_successful(halves):
        raise RuntimeError("the bench answer's halves were refused")


def _plan(service: Service, question: Question) -> Result[Plan, Refusal | QuestionError]:
    return plan_question(question, service.pinned, service.settings, utc_today())


def main() -> None:
    """Print this section of the performance table."""
    print(render(measure()))


if __name__ == "__main__":
    main()
