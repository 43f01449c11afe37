"""``list_values`` on PostgreSQL: the 1M-row table of :mod:`bench.values` copied into a scratch
database (dropped afterwards) that a read-only role reads, beside the raw ``SELECT DISTINCT``
run bare through psycopg. Without a server (``SUTURA_TEST_POSTGRES``, default the local one)
the section is not measured, and says why.
"""

import tempfile
from pathlib import Path

import anyio
import psycopg
from tests.postgres import copy_from_duckdb, describe, scratch_database, server_dsn

from bench.table import Figure, NotMeasuredError, render
from bench.values import data_file, figures, lookup_ms, settings_dir

PASSWORD_VAR = "SUTURA_BENCH_VALUES_PASSWORD"


def measure() -> list[Figure]:
    """PostgreSQL: ``list_values`` beside the raw statement; not measured without a server."""
    dsn = server_dsn()
    try:
        psycopg.connect(dsn, connect_timeout=2).close()
    except psycopg.Error as err:
        reason = " ".join(str(err).split())
        raise NotMeasuredError(f"no PostgreSQL answers at {describe(dsn)} ({reason})") from err
    data = data_file()
    with scratch_database(dsn) as scratch, tempfile.TemporaryDirectory() as work:
        copy_from_duckdb(data, scratch, Path(work))
        source: dict[str, object] = {
            "kind": "postgres",
            "host": scratch.host,
            "port": scratch.port,
            "database": scratch.database,
            "user": scratch.reader,
            "password_env": PASSWORD_VAR,
            "sslmode": "disable",
        }
        config = settings_dir(Path(work) / "settings", source)
        ours = anyio.run(lookup_ms, config, {PASSWORD_VAR: scratch.reader_password})
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as connection:
            return figures(
                "PostgreSQL", ours, lambda sql: connection.execute(sql.encode()).fetchall()
            )


if __name__ == "__main__":
    print(render(measure()))
