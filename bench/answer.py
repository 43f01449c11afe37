"""Answer time: the compiled SQL run raw on DuckDB vs sutura's end-to-end in-process answer."""

import tempfile
from pathlib import Path

import anyio
import duckdb

from bench.serving import ask, interleaved_medians, plan, serving
from bench.table import Figure
from sutura.boundary.example import write_example
from sutura.core.question.model import Question, decode_question_json

BENCH_QUESTION = (
    b'{"metrics": ["revenue", "order_count"], "grain": "month",'
    b' "range": {"start": "2024-01-01", "end": "2025-01-01"}, "dimensions": ["region"]}'
)
ORDERS = 1_000_000
REPEAT = 30


def example_dir(orders: int = ORDERS) -> Path:
    """A 1M-row example, written once per machine under the temp directory."""
    target = Path(tempfile.gettempdir()) / f"sutura-bench-example-{orders}"
    if not (target / "base.yaml").exists():
        write_example(target, orders=orders)
    return target


def bench_question() -> Question:
    """The question every benchmark asks."""
    return decode_question_json(BENCH_QUESTION).unwrap()


def measure() -> list[Figure]:
    """Raw DuckDB time of the compiled SQL beside the end-to-end answer, both warm, in turns."""
    config = example_dir()
    question = bench_question()
    _, compiled = plan(config, question)
    database = str(config / "data" / "example.duckdb")

    async def both() -> tuple[float, float]:
        # One process, one DuckDB instance: the raw connection shares the service's (locked)
        # instance, so both read the same buffers under the same settings, call by call.
        with duckdb.connect(database, read_only=True) as connection:
            async with serving(config) as service:
                return await interleaved_medians(
                    lambda: connection.execute(compiled.sql, compiled.params).fetchall(),
                    lambda: ask(service, question),
                    REPEAT,
                )

    raw, ours = anyio.run(both)
    return [
        Figure(
            "answer",
            "bench question, 1M rows, warm (median)",
            ours * 1e3,
            raw * 1e3,
            "ms",
            "≤ 1.10×",
            "raw DuckDB, same SQL",
        )
    ]
