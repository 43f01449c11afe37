"""Answer time: the compiled SQL run raw on DuckDB vs sutura's end-to-end in-process answer."""

import tempfile
from pathlib import Path

import anyio

from bench.serving import beside_raw_duckdb, plan
from bench.table import Figure
from sutura.boundary.example import write_example
from sutura.core.nouns.question import Question, decode_question_json

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
    raw, ours = anyio.run(
        beside_raw_duckdb, config, question, compiled.sql, compiled.params, REPEAT
    )
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
