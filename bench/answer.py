"""Answer time: the compiled SQL run raw on DuckDB vs sutura's end-to-end in-process answer."""

import datetime
import tempfile
from pathlib import Path

import anyio
import duckdb

from bench.table import Figure, median_seconds
from sutura.boundary.answering import Service
from sutura.boundary.example import write_example
from sutura.boundary.startup import load, start
from sutura.core.question.model import Question, decode_question_json
from sutura.core.question.resolve import Resolved
from sutura.core.sql.compile import CompiledQuery

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


async def _started(config: Path) -> Service:
    return (await start({"SUTURA_CONFIG_DIR": str(config)})).unwrap()


def measure() -> list[Figure]:
    """Raw DuckDB time of the compiled SQL beside the end-to-end answer, both warm."""
    config = example_dir()
    question = bench_question()
    _, compiled = _plan(config, question)
    database = str(config / "data" / "example.duckdb")
    raw_connection = duckdb.connect(database, read_only=True)
    raw = median_seconds(
        lambda: raw_connection.execute(compiled.sql, compiled.params).fetchall(), REPEAT
    )
    raw_connection.close()

    async def end_to_end() -> float:
        service = await _started(config)
        try:
            times: list[float] = []
            await service.ask(question)
            for _ in range(REPEAT):
                start_at = anyio.current_time()
                await service.ask(question)
                times.append(anyio.current_time() - start_at)
            return sorted(times)[len(times) // 2]
        finally:
            await service.close()

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


def _plan(config: Path, question: Question) -> tuple[Resolved, CompiledQuery]:
    loaded = load({"SUTURA_CONFIG_DIR": str(config)}).unwrap()
    service = Service(
        settings=loaded.loaded.settings, pinned=loaded.pinned, sources={}, today=datetime.date.today
    )
    return service.plan(question).unwrap()
