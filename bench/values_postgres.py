"""``list_values`` on PostgreSQL: the 1M-row table of :mod:`bench.values` copied into a scratch
database (dropped afterwards) that a read-only role reads, beside the raw ``SELECT DISTINCT``
run bare through psycopg. Without a server (``SUTURA_TEST_POSTGRES``, default the local one)
the section is not measured, and says why.
"""

import tempfile
from pathlib import Path

import anyio
import psycopg
from returns.pipeline import is_successful
from tests.postgres import copy_from_duckdb, reachable_server, scratch_database

from bench.table import Figure, NotMeasuredError, render
from bench.values import data_file, figures, lookup_ms, settings_dir

PASSWORD_VAR = "SUTURA_BENCH_VALUES_PASSWORD"


def measure() -> list[Figure]:
    """PostgreSQL: ``list_values`` beside the raw statement; not measured without a server."""
    server = reachable_server()
    if not is_successful(server):
        raise NotMeasuredError(server.failure())
    data = data_file()
    with scratch_database(server.unwrap()) as scratch, tempfile.TemporaryDirectory() as work:
        copy_from_duckdb(data, scratch, Path(work))
        config = settings_dir(Path(work) / "settings", scratch.source_settings(PASSWORD_VAR))
        ours = anyio.run(lookup_ms, config, {PASSWORD_VAR: scratch.reader_password})
        with psycopg.connect(scratch.admin_dsn, autocommit=True, sslmode="disable") as connection:
            return figures(
                "PostgreSQL", ours, lambda sql: connection.execute(sql.encode()).fetchall()
            )


if __name__ == "__main__":
    print(render(measure()))
