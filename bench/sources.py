"""Source time: the bench question answered from PostgreSQL beside DuckDB, on the 1M-row example.

The example's DuckDB file is copied into a scratch PostgreSQL database (dropped afterwards) that
a read-only role reads; both engines serve the same catalog and rows through the real startup
path and :class:`Service`, warm. A second line compares sutura's PostgreSQL answer with the same
compiled SQL run bare through psycopg, which is the cost of the source itself.

The server is ``SUTURA_TEST_POSTGRES`` (default ``postgresql://postgres@127.0.0.1:5432/test``);
without one the section is not measured, and says why. ``python -m bench.sources`` prints this
section alone.
"""

import json
import sys
import tempfile
from pathlib import Path

import anyio
import psycopg
from returns.pipeline import is_successful
from tests.postgres import Scratch, copy_from_duckdb, reachable_server, scratch_database

from bench.answer import bench_question, example_dir
from bench.serving import ask, serving
from bench.table import Figure, NotMeasuredError, median_seconds, render
from sutura.boundary.example import CATALOG, DATABASE
from sutura.core.nouns.question import Question
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.tool.caller import Caller

REPEAT = 15
PASSWORD_VAR = "SUTURA_BENCH_POSTGRES_PASSWORD"


def measure() -> list[Figure]:
    """PostgreSQL beside DuckDB for the bench question; empty when no server answers."""
    server = reachable_server()
    if not is_successful(server):
        raise NotMeasuredError(server.failure())
    config = example_dir()
    with scratch_database(server.unwrap()) as scratch, tempfile.TemporaryDirectory() as work:
        copy_from_duckdb(config / DATABASE, scratch, Path(work))
        postgres_config = _postgres_settings(Path(work), config / CATALOG, scratch)
        secrets = {PASSWORD_VAR: scratch.reader_password}
        duckdb_ms, _ = anyio.run(_answer_time, config, bench_question(), {})
        postgres_ms, compiled = anyio.run(_answer_time, postgres_config, bench_question(), secrets)
        bare_ms = _bare_time(scratch, compiled)
    return [
        Figure(
            area="sources",
            measure="bench question on PostgreSQL, 1M rows, warm",
            ours=postgres_ms,
            reference=duckdb_ms,
            unit="ms",
            goal="report",
            reference_name="DuckDB source, same question",
        ),
        Figure(
            area="sources",
            measure="PostgreSQL source vs the same SQL bare",
            ours=postgres_ms,
            reference=bare_ms,
            unit="ms",
            goal="≤ 1.10×",
            reference_name="psycopg fetchall, same SQL",
        ),
    ]


def _postgres_settings(work: Path, catalog: Path, scratch: Scratch) -> Path:
    """A settings directory whose one source ``main`` is the scratch database."""
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": scratch.source_settings(PASSWORD_VAR)},
        "security": {"identity": "single-user", "single_user_because": "one user runs the bench"},
    }
    (work / "base.yaml").write_text(json.dumps(document), encoding="utf-8")
    return work


async def _answer_time(
    config: Path, question: Question, secrets: dict[str, str]
) -> tuple[float, CompiledQuery]:
    """The median milliseconds of the service's answer, warm, and the statement it ran."""
    async with serving(config, secrets) as service:
        _, compiled = service.plan(
            question, Caller.local(request_id="bench", surface="bench")
        ).unwrap()
        await ask(service, question)
        times: list[float] = []
        for _ in range(REPEAT):
            started = anyio.current_time()
            await ask(service, question)
            times.append(anyio.current_time() - started)
        return sorted(times)[len(times) // 2] * 1e3, compiled


def _bare_time(scratch: Scratch, compiled: CompiledQuery) -> float:
    """The median milliseconds of the compiled statement through one bare psycopg connection."""
    with psycopg.connect(scratch.admin_dsn, sslmode="disable") as connection:
        seconds = median_seconds(
            lambda: connection.execute(compiled.sql, compiled.params).fetchall(), REPEAT
        )
        connection.rollback()
    return seconds * 1e3


def main() -> int:
    """Measure this section and print its table."""
    print(render(measure()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
