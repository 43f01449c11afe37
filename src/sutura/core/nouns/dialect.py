"""The SQL dialects a source may speak: a closed vocabulary, matched exhaustively.

Its values are sqlglot's names for the dialects (``sqlglot.transpile(..., write=dialect)``).
What the rest of sutura needs to know about a dialect besides the statements it reads (how it
spells names and types, how exact its averages are) is decided once, here, by
:func:`traits_of`: a new dialect is one new row there, and mypy names the row that is missing.

>>> Dialect("postgres") is Dialect.POSTGRES, Dialect.SPARK.value
(True, 'spark')
>>> traits_of(Dialect.POSTGRES).case_sensitive_names, traits_of(Dialect.SPARK).rounded_averages
(True, True)
"""

from enum import StrEnum
from typing import Final, assert_never

from sutura.core.nouns.frozen import Frozen


class Dialect(StrEnum):
    """The SQL a source speaks."""

    DUCKDB = "duckdb"
    POSTGRES = "postgres"
    SPARK = "spark"


class Traits(Frozen, frozen=True):
    """How a dialect differs where sutura must know it.

    Attributes:
        schemas: A database holds named schemas (a Spark database) ``sutura init --schema`` may
            read.
        case_sensitive_names: A quoted column name matches exactly (else ignoring case).
        percent_placeholders: The driver's placeholders are ``%s``: a ``%`` in a name is doubled.
        internal_type_names: Types are reported by internal names (``int4``), which a draft
            spells as SQL does (``integer``).
        instant_timestamps: A plain ``TIMESTAMP`` is an instant (a ``timestamptz``).
        rounded_averages: ``avg`` of a decimal is rounded to a fixed scale, so ``top`` ranks an
            average by its exact quotient instead.
        rounded_wide_decimals: Decimal arithmetic or a comparison whose type would pass 38
            digits silently rounds its scale (Spark's ``allowPrecisionLoss``), so a product, a
            percentile's step and the sides of a comparison are cast to a type that holds them.
        rounded_chosen_decimals: A value ``coalesce`` or ``case`` chooses between decimals of
            different types is rounded where their common type passes 38 digits, so each is
            cast to one that holds it.
        narrow_integer_sums: ``SUM`` of an integer is a 64-bit integer that overflows past
            2^63 (Spark's ``BIGINT``, an error under ANSI), where the others' is wider (DuckDB's
            ``HUGEINT``, PostgreSQL's ``NUMERIC``), so an integer is summed as a
            ``DECIMAL(38, 0)``.
        narrow_decimal_products: A product of two decimals of at most 18 digits (or of one and
            an ``INTEGER``) is computed in 64 bits and overflows past 18 digits (DuckDB), so
            where the catalog's type of the product is wider, one factor is first read as a
            ``DECIMAL(38, its scale)``.
        collated_text: Text orders by the database's (or the column's) collation, which may
            be linguistic (``en_US.UTF-8`` puts ``'a'`` before ``'B'`` and skips punctuation),
            where the others order it by code point; so a text dimension is selected under the
            ``C`` collation (``COLLATE "C"``), which orders by code point, and every ORDER BY
            over it (the rows, a rank, a page of values) agrees with the other engines; a
            column startup learnt the source orders so already (collated ``C``, ``POSIX`` or
            ``C.UTF-8``, or by such a database default) is selected as it is, so an index
            on it still serves the order.
    """

    schemas: bool = False
    case_sensitive_names: bool = False
    percent_placeholders: bool = False
    internal_type_names: bool = False
    instant_timestamps: bool = False
    rounded_averages: bool = False
    rounded_wide_decimals: bool = False
    rounded_chosen_decimals: bool = False
    narrow_integer_sums: bool = False
    narrow_decimal_products: bool = False
    collated_text: bool = False


_DUCKDB: Final = Traits(rounded_chosen_decimals=True, narrow_decimal_products=True)
_POSTGRES: Final = Traits(
    schemas=True,
    case_sensitive_names=True,
    percent_placeholders=True,
    internal_type_names=True,
    collated_text=True,
)
_SPARK: Final = Traits(
    schemas=True,
    instant_timestamps=True,
    rounded_averages=True,
    rounded_wide_decimals=True,
    rounded_chosen_decimals=True,
    narrow_integer_sums=True,
)


def traits_of(dialect: Dialect) -> Traits:
    """How ``dialect`` differs from the others."""
    match dialect:
        case Dialect.DUCKDB:
            return _DUCKDB
        case Dialect.POSTGRES:
            return _POSTGRES
        case Dialect.SPARK:
            return _SPARK
        case _:
            assert_never(dialect)
