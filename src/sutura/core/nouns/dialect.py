"""The SQL dialects a source may speak: a closed vocabulary, matched exhaustively.

Its values are sqlglot's names for the dialects (``sqlglot.transpile(..., write=dialect)``).

>>> Dialect("postgres") is Dialect.POSTGRES, Dialect.SPARK.value
(True, 'spark')
"""

from enum import StrEnum


class Dialect(StrEnum):
    """The SQL a source speaks."""

    DUCKDB = "duckdb"
    POSTGRES = "postgres"
    SPARK = "spark"
