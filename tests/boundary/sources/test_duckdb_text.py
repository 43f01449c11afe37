"""Cells DuckDB writes as text itself are exactly the text the Python path writes, in order."""

import datetime
import decimal

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sutura.boundary.sources.duckdb_text import (
    WORTH_CASTING,
    TextStatement,
    TextStatements,
    text_statement,
)
from sutura.core.sql.cells import cell_text

# Each type the engine casts, with the values at its edges (and NULL).
EDGES: dict[str, list[str]] = {
    "TINYINT": ["-128", "0", "127"],
    "SMALLINT": ["-32768", "-1", "32767"],
    "INTEGER": ["-2147483648", "7", "2147483647"],
    "BIGINT": ["-9223372036854775808", "9223372036854775807"],
    "HUGEINT": [
        "-170141183460469231731687303715884105728",
        "170141183460469231731687303715884105727",
    ],
    "UTINYINT": ["0", "255"],
    "USMALLINT": ["65535"],
    "UINTEGER": ["4294967295"],
    "UBIGINT": ["18446744073709551615"],
    "UHUGEINT": ["340282366920938463463374607431768211455"],
    "DECIMAL(4,2)": ["-0.05", "0", "0.10", "99.99", "-99.99"],
    "DECIMAL(18,9)": ["0.0000001", "-123456789.123456789", "1"],
    "DECIMAL(38,10)": ["1", "-0.0000000001", "1234567890123456789012345678.0123456789"],
    "DECIMAL(5,0)": ["-5", "0", "99999"],
    "BOOLEAN": ["true", "false"],
    "DATE": [
        "2024-02-29",
        "0099-03-04",
        "0001-01-01",
        "9999-12-31",
        "10000-01-01",
        "infinity",
        "-infinity",
        "epoch",
    ],
}


def _rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[list[str | None]]:
    return [[cell_text(cell) for cell in row] for row in connection.execute(sql).fetchall()]


def _wrapped(
    connection: duckdb.DuckDBPyConnection, sql: str, params: list[object]
) -> TextStatement:
    """``sql``'s wrapped form, learnt from a first run as long as it pays to cast."""
    statements = TextStatements()
    assert statements.wrapped(sql, params) is None
    description = connection.execute(sql, params).description or ()
    statements.ran(sql, params, description, WORTH_CASTING, None)
    wrapped = statements.wrapped(sql, params)
    assert wrapped is not None
    return wrapped


def _engine_rows(connection: duckdb.DuckDBPyConnection, sql: str) -> list[list[object]]:
    return [list(row) for row in connection.execute(_wrapped(connection, sql, []).sql).fetchall()]


@pytest.mark.parametrize("kind", sorted(EDGES))
def test_the_engine_writes_each_cast_type_as_the_python_path_does(kind: str) -> None:
    values = ", ".join(f"({i}, CAST('{v}' AS {kind}))" for i, v in enumerate(EDGES[kind]))
    sql = f"SELECT v FROM (VALUES {values}, ({len(EDGES[kind])}, NULL)) AS t(k, v) ORDER BY k"
    with duckdb.connect() as connection:
        assert _engine_rows(connection, sql) == _rows(connection, sql)
        assert _wrapped(connection, sql, []).text_columns == frozenset({0})


@settings(max_examples=60, deadline=None)
@given(
    scale=st.integers(min_value=0, max_value=18),
    numbers=st.lists(st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1), min_size=1),
)
def test_any_decimal_is_written_by_the_engine_as_by_python(scale: int, numbers: list[int]) -> None:
    texts = [format(decimal.Decimal(n).scaleb(-scale), "f") for n in numbers]
    cells = ", ".join(f"({i}, CAST('{t}' AS DECIMAL(38, {scale})))" for i, t in enumerate(texts))
    sql = f"SELECT d FROM (VALUES {cells}) AS t(k, d) ORDER BY k"
    with duckdb.connect() as connection:
        engine = _engine_rows(connection, sql)
        assert engine == _rows(connection, sql)
    assert engine == [[text] for text in texts]


def test_other_types_are_left_to_python_and_text_is_taken_as_it_is() -> None:
    sql = "SELECT 'x' AS label, 1.5::DOUBLE AS ratio, TIMESTAMP '2024-01-02 03:04:05' AS at, 7 AS n"
    with duckdb.connect() as connection:
        description = connection.execute(sql).description or ()
        first_run = TextStatements().ran(sql, [], description, 1, None)
        wrapped = _wrapped(connection, sql, [])
        rows = connection.execute(wrapped.sql).fetchall()
    assert first_run == frozenset({0})
    assert wrapped.text_columns == frozenset({0, 3})
    assert rows == [("x", 1.5, datetime.datetime(2024, 1, 2, 3, 4, 5), "7")]


def test_a_statement_with_nothing_to_cast_runs_as_it_is() -> None:
    assert text_statement("SELECT 'a' AS x", ["x"], ["varchar"]).sql == "SELECT 'a' AS x"


def test_the_wrapped_statement_keeps_names_order_and_parameters() -> None:
    sql = (
        'SELECT k AS "a ""quoted"" name", k * 2 AS "a ""quoted"" name_2", s '
        "FROM (VALUES (3, 'c'), (1, 'a'), (2, 'b')) AS t(k, s) WHERE k >= ? ORDER BY k DESC"
    )
    with duckdb.connect() as connection:
        wrapped = _wrapped(connection, sql, [2])
        cursor = connection.execute(wrapped.sql, [2])
        names = [column[0] for column in cursor.description or ()]
        assert cursor.fetchall() == [("3", "6", "c"), ("2", "4", "b")]
    assert names == ['a "quoted" name', 'a "quoted" name_2', "s"]


def test_each_statement_is_learnt_once_per_kind_of_parameters() -> None:
    statements = TextStatements()
    sql = "SELECT ? AS v"
    with duckdb.connect() as connection:
        for value in (1, "x"):
            description = connection.execute(sql, [value]).description or ()
            statements.ran(sql, [value], description, WORTH_CASTING, None)
    number = statements.wrapped(sql, [2])
    assert number is not None and "CAST" in number.sql and number.text_columns == frozenset({0})
    assert statements.wrapped(sql, ["y"]) is None  # text already: nothing to cast
    assert statements.wrapped(sql, [2.5]) is None  # a double: never learnt


def test_a_statement_is_wrapped_only_while_its_last_run_was_long_enough_to_pay() -> None:
    statements = TextStatements()
    sql = "SELECT 1 AS a, 2 AS b"
    with duckdb.connect() as connection:
        description = connection.execute(sql).description or ()
    statements.ran(sql, [], description, WORTH_CASTING // 2 - 1, None)  # two columns cast
    assert statements.wrapped(sql, []) is None
    statements.ran(sql, [], description, WORTH_CASTING // 2, None)
    wrapped = statements.wrapped(sql, [])
    assert wrapped is not None
    statements.ran(sql, [], description, 1, wrapped)
    assert statements.wrapped(sql, []) is None
