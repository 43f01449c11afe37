"""Answer time: the compiled SQL run raw on DuckDB vs sutura's end-to-end in-process answer."""

import tempfile
from pathlib import Path

import anyio
import duckdb

from bench.serving import ask, plan, serving
from bench.table import Figure, median_seconds
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
    """Raw DuckDB time of the compiled SQL beside the end-to-end answer, both warm."""
    config = example_dir()
    question = bench_question()
    _, compiled = plan(config, question)
    database = str(config / "data" / "example.duckdb")
    raw_connection = duckdb.connect(database, read_only=True)
    raw = median_seconds(
        lambda: raw_connection.execute(compiled.sql, compiled.params).fetchall(), REPEAT
    )
    raw_connection.close()

    async def end_to_end() -> float:
        async with serving(config) as service:
            times: list[float] = []
            await ask(service, question)
            for _ in range(REPEAT):
                start_at = anyio.current_time()
                await ask(service, question)
                times.append(anyio.current_time() - start_at)
            return sorted(times)[len(times) // 2]

    ours = anyio.run(end_to_end)
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
