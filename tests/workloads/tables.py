"""A workload's tables written once, and their DDL as each engine spells it.

A column's type is one of a closed family (:data:`ColumnType`); each engine gets the spelling
that holds the same values exactly. DuckDB reads ``CHAR(n)`` and ``VARCHAR(n)`` as unbounded
text; PostgreSQL and Spark keep both, and pad a ``CHAR(n)`` value with blanks on read (see
:mod:`tests.workloads.oracle` for what the canonical text of such a cell is). Spark has no
primary keys, so its DDL leaves them out.

>>> nation = Table("nation", (Column("n_nationkey", Integer()), Column("n_name", Char(25))),
...     primary_key=("n_nationkey",))
>>> create_table(nation, "tpch", Dialect.POSTGRES)
'CREATE TABLE "tpch"."nation" ("n_nationkey" INTEGER NOT NULL, "n_name" CHAR(25) NOT NULL, \
PRIMARY KEY ("n_nationkey"))'
>>> create_table(nation, "tpch", Dialect.SPARK)  # doctest: +ELLIPSIS
'CREATE TABLE `tpch`.`nation` (`n_nationkey` INT NOT NULL, ...) USING parquet'
"""

from typing import NamedTuple, assert_never

from sutura.core.nouns.dialect import Dialect


class Integer(NamedTuple):
    """A 32-bit integer."""


class BigInt(NamedTuple):
    """A 64-bit integer."""


class Decimal(NamedTuple):
    """An exact decimal of ``precision`` digits, ``scale`` after the point."""

    precision: int
    scale: int


class Char(NamedTuple):
    """Fixed-length text of ``length`` characters (blank-padded where the engine pads)."""

    length: int


class Varchar(NamedTuple):
    """Text of at most ``length`` characters, or of any length."""

    length: int | None = None


class Date(NamedTuple):
    """A calendar date."""


class Instant(NamedTuple):
    """A point in time (``TIMESTAMP WITH TIME ZONE``; Spark's ``TIMESTAMP`` is one)."""


class Double(NamedTuple):
    """A binary floating-point number (for values the data only has as floats)."""


ColumnType = Integer | BigInt | Decimal | Char | Varchar | Date | Instant | Double


class Column(NamedTuple):
    """One column: its name, type, and whether it may hold NULL."""

    name: str
    type: ColumnType
    nullable: bool = False


class Table(NamedTuple):
    """One table: its columns in order, and its primary key (declared where the engine can)."""

    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()


def spelled(kind: ColumnType, engine: Dialect) -> str:
    """The type ``kind`` as ``engine`` spells it in a ``CREATE TABLE``."""
    match kind:
        case Integer():
            return "INT" if engine is Dialect.SPARK else "INTEGER"
        case BigInt():
            return "BIGINT"
        case Decimal(precision=precision, scale=scale):
            return f"DECIMAL({precision},{scale})"
        case Char(length=length):
            return f"CHAR({length})"
        case Varchar(length=None):
            return "STRING" if engine is Dialect.SPARK else "VARCHAR"
        case Varchar(length=length):
            return f"VARCHAR({length})"
        case Date():
            return "DATE"
        case Instant():
            return _instant(engine)
        case Double():
            return "DOUBLE PRECISION" if engine is Dialect.POSTGRES else "DOUBLE"
        case _:
            assert_never(kind)


def _instant(engine: Dialect) -> str:
    match engine:
        case Dialect.DUCKDB | Dialect.POSTGRES:
            return "TIMESTAMPTZ"
        case Dialect.SPARK:
            return "TIMESTAMP"
        case _:
            assert_never(engine)


def quoted(name: str, engine: Dialect) -> str:
    """An identifier quoted for ``engine`` (names here never hold a quote character)."""
    return f"`{name}`" if engine is Dialect.SPARK else f'"{name}"'


def qualified(schema: str, table: str, engine: Dialect) -> str:
    """``schema.table``, both quoted for ``engine``."""
    return f"{quoted(schema, engine)}.{quoted(table, engine)}"


def create_table(table: Table, schema: str, engine: Dialect) -> str:
    """The ``CREATE TABLE`` statement of ``table`` in ``schema`` on ``engine``."""
    parts = [
        f"{quoted(c.name, engine)} {spelled(c.type, engine)}{'' if c.nullable else ' NOT NULL'}"
        for c in table.columns
    ]
    if table.primary_key and engine is not Dialect.SPARK:
        keys = ", ".join(quoted(name, engine) for name in table.primary_key)
        parts.append(f"PRIMARY KEY ({keys})")
    suffix = " USING parquet" if engine is Dialect.SPARK else ""
    return f"CREATE TABLE {qualified(schema, table.name, engine)} ({', '.join(parts)}){suffix}"


def char_columns(tables: tuple[Table, ...]) -> frozenset[str]:
    """The names of every ``CHAR(n)`` column of ``tables``."""
    return frozenset(c.name for t in tables for c in t.columns if isinstance(c.type, Char))
