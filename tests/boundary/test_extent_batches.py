"""A batch of extents (the days of each extent's rows joined by ``UNION ALL``, aggregated once
by position) finds what each extent's own statement finds, on DuckDB and on PostgreSQL: an
extent that reads no row has no row in the batch, where its own statement finds NULLs."""

import datetime
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import duckdb
import psycopg
import pytest

from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.extent import batched_extent_statement, extent_statement
from tests.core.sample_catalog import CATALOG, ORDER_COUNT, PAID_REVENUE, REVENUE, UNITS
from tests.postgres import scratch_database

METRICS = (REVENUE, ORDER_COUNT, PAID_REVENUE, UNITS)
_TABLE = (
    "CREATE TABLE orders (order_id integer, customer_id integer, created_at date,"
    " status varchar, channel varchar, amount decimal(10,2), quantity integer,"
    " is_paid boolean, ship_region varchar)"
)
_FILL = (
    "INSERT INTO orders SELECT n, n % 50, DATE '2020-01-01' + CAST(n % 1500 AS integer),"
    " CASE WHEN n % 7 = 0 THEN 'cancelled' ELSE 'complete' END, 'web', n % 100, 1,"
    " false, 'EU' FROM {numbers}"
)
"""Rows numbered from 1, each on one of 1,500 days from 2020-01-01, none paid (so the extent of paid
revenue reads no row); ``numbers`` as the engine spells a series."""

Run = Callable[[str, Sequence[object]], list[tuple[Any, ...]]]


@contextmanager
def _duckdb() -> Iterator[Run]:
    connection = duckdb.connect()
    try:
        connection.execute(_TABLE)
        connection.execute(_FILL.format(numbers="range(1, 2001) AS t(n)"))
        yield lambda sql, params: connection.execute(sql, list(params)).fetchall()
    finally:
        connection.close()


@contextmanager
def _postgres(dsn: str) -> Iterator[Run]:
    with (
        scratch_database(dsn) as scratch,
        psycopg.connect(scratch.admin_dsn, autocommit=True) as connection,
    ):
        connection.execute(_TABLE)
        connection.execute(_FILL.format(numbers="generate_series(1, 2000) AS n"))
        yield lambda sql, params: connection.execute(sql, tuple(params)).fetchall()


def _batch_and_alone(run: Run, dialect: Dialect) -> None:
    batch = batched_extent_statement(METRICS, CATALOG, dialect)
    found = {row[0]: tuple(row[1:]) for row in run(batch.sql, batch.params)}
    alone = []
    for metric in METRICS:
        own = extent_statement(metric, CATALOG, dialect)
        alone.append(tuple(run(own.sql, own.params)[0]))
    assert [found.get(index, (None, None)) for index in range(len(METRICS))] == alone
    assert alone[2] == (None, None)
    assert 2 not in found
    assert alone[0][0] == datetime.date(2020, 1, 1)


def test_a_duckdb_batch_finds_what_each_extent_alone_finds() -> None:
    with _duckdb() as run:
        _batch_and_alone(run, Dialect.DUCKDB)


@pytest.mark.postgres
def test_a_postgres_batch_finds_what_each_extent_alone_finds(postgres_dsn: str) -> None:
    with _postgres(postgres_dsn) as run:
        _batch_and_alone(run, Dialect.POSTGRES)
