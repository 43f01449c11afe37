"""The types an expression computes with: a family, and a decimal's precision and scale.

A column's type is what its model declares (``columns: [{name, type}]``), read here by its
family; ``sutura check`` holds every declared type to the source's (same family, same decimal
scale), so a type checked here is the type the engine has. A column declared without a type
has no type here (``None``): the forms a catalog could always write (``{aggregate, column}``,
the four required filters) still accept it, every other node asks for the declaration.

The spelled names are those DuckDB, PostgreSQL and Spark report (``DECIMAL(12,2)``,
``numeric(12,2)``, ``character varying``, ``timestamp with time zone``):

>>> shown_type(declared_type("numeric(12,2)")), shown_type(declared_type("character varying(20)"))
('decimal(12,2)', 'text')
>>> declared_type("BIGINT").family, declared_type("geometry") is None
(<Family.INTEGER: 'integer'>, True)
"""

import functools
import re
from enum import StrEnum
from typing import Final, NamedTuple, assert_never

from sutura.core.nouns.frozen import Frozen

MAX_PRECISION: Final = 38
"""The widest decimal every engine computes with exactly (DuckDB and Spark stop at 38)."""

INTEGER_PRECISION: Final = 20
"""The digits an integer is counted as in a decimal result (a 64-bit integer has 19 and a sign,
and Spark widens a BIGINT to ``DECIMAL(20,0)`` before it computes with a decimal)."""


class Family(StrEnum):
    """What kind of value a node computes; the name an author declares a dimension's type by."""

    BOOLEAN = "boolean"
    INTEGER = "integer"
    DECIMAL = "decimal"
    FLOAT = "float"
    TEXT = "text"
    DATE = "date"
    TIMESTAMP = "timestamp"


NAMES_OF_FAMILY: Final = {
    "integer": (
        "TINYINT SMALLINT INTEGER INT BIGINT HUGEINT UTINYINT USMALLINT UINTEGER UBIGINT "
        "UHUGEINT INT1 INT2 INT4 INT8 INT16 INT32 INT64 INT128 LONG SHORT BYTE SERIAL BIGSERIAL"
    ),
    "decimal": "DECIMAL NUMERIC DEC",
    "float": "REAL FLOAT FLOAT4 FLOAT8 DOUBLE DOUBLE_PRECISION",
    "text": "VARCHAR TEXT STRING CHAR BPCHAR CHARACTER CHARACTER_VARYING NAME NVARCHAR",
    "date": "DATE",
    "timestamp": "TIMESTAMP DATETIME TIMESTAMP_NTZ TIMESTAMP_WITHOUT_TIME_ZONE TIMESTAMP_S "
    "TIMESTAMP_MS TIMESTAMP_NS TIMESTAMP_US",
    "timestamptz": "TIMESTAMPTZ TIMESTAMP_WITH_TIME_ZONE TIMESTAMP_LTZ",
    "boolean": "BOOLEAN BOOL LOGICAL",
}
"""Every type name an engine reports, by family (``timestamptz``: an instant, kept apart by the
check of a model against its source; an expression reads both kinds of timestamp alike)."""

FAMILY_OF_NAME: Final = {
    name: family for family, names in NAMES_OF_FAMILY.items() for name in names.split()
}
_PARAMETERS: Final = re.compile(r"\(([^)]*)\)")
_EXPRESSION_FAMILY: Final = {
    "timestamptz": Family.TIMESTAMP,
    **{family.value: family for family in Family},
}


_PADDED: Final = frozenset({"CHAR", "BPCHAR", "CHARACTER", "NCHAR"})
"""Fixed-length text: PostgreSQL and Spark pad its values with blanks, DuckDB does not."""


class SqlType(Frozen, frozen=True):
    """A node's type: its family, for a decimal its precision and scale when known, and for
    text whether it is fixed-length (``CHAR(n)``: read without the blanks that pad it)."""

    family: Family
    precision: int | None = None
    scale: int | None = None
    padded: bool = False


def spelled_base(spelled: str) -> str:
    """A type name without its parameters, upper case, words joined by ``_``.

    >>> spelled_base("timestamp with time zone"), spelled_base("DECIMAL(12, 2)")
    ('TIMESTAMP_WITH_TIME_ZONE', 'DECIMAL')
    """
    return re.sub(r"\s+", "_", _PARAMETERS.sub("", spelled).strip().upper())


def spelled_parameters(spelled: str) -> tuple[int | None, int | None]:
    """The precision and scale written in a type name, each None when absent.

    >>> spelled_parameters("DECIMAL(12, 2)"), spelled_parameters("numeric")
    ((12, 2), (None, None))
    >>> spelled_parameters("DEC(9)")
    (9, 0)
    """
    found = _PARAMETERS.search(spelled)
    if found is None:
        return None, None
    parts = [part.strip() for part in found.group(1).split(",")]
    precision = int(parts[0]) if parts[0].isdigit() else None
    if len(parts) == 1:
        return precision, 0
    return precision, int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else None


@functools.lru_cache(maxsize=1024)
def declared_type(spelled: str) -> SqlType | None:
    """The type of a column declared as ``spelled``, or None for a type outside the families
    (kept per spelling: a catalog spells a few types for thousands of columns, and a type is
    a frozen value)."""
    family = _EXPRESSION_FAMILY.get(FAMILY_OF_NAME.get(spelled_base(spelled), ""))
    if family is None:
        return None
    if traits(family).text:
        return SqlType(family=family, padded=spelled_base(spelled) in _PADDED)
    if not traits(family).exact or traits(family).integer:
        return SqlType(family=family)
    precision, scale = spelled_parameters(spelled)
    return SqlType(family=family, precision=precision, scale=scale)


class Traits(NamedTuple):
    """What values of one family allow."""

    number: bool
    """They compute with arithmetic."""
    ordered: bool
    """Every engine orders them alike. Text is not: PostgreSQL orders it by the database's
    collation, DuckDB and Spark by code point, so ``less_than`` on text would answer
    differently per engine."""
    exact: bool
    """A number that is an integer or a decimal (not floating point)."""
    integer: bool
    text: bool
    boolean: bool
    temporal: bool
    """A day or an instant: it has date parts."""
    clock: bool
    """An instant: it has an hour."""


def traits(family: Family) -> Traits:
    """What values of ``family`` allow.

    >>> traits(Family.DECIMAL).number, traits(Family.TEXT).ordered, traits(Family.DATE).clock
    (True, False, False)
    """
    match family:
        case Family.INTEGER:
            return Traits(True, True, True, True, False, False, False, False)
        case Family.DECIMAL:
            return Traits(True, True, True, False, False, False, False, False)
        case Family.FLOAT:
            return Traits(True, True, False, False, False, False, False, False)
        case Family.TEXT:
            return Traits(False, False, False, False, True, False, False, False)
        case Family.BOOLEAN:
            return Traits(False, False, False, False, False, True, False, False)
        case Family.DATE:
            return Traits(False, True, False, False, False, False, True, False)
        case Family.TIMESTAMP:
            return Traits(False, True, False, False, False, False, True, True)
        case _:
            assert_never(family)


def shown_type(kind: SqlType) -> str:
    """How a type is named in a problem or a formula: ``decimal(15,2)``, ``integer``.

    >>> shown_type(SqlType(family=Family.DECIMAL, precision=15, scale=2))
    'decimal(15,2)'
    """
    if kind.scale is not None:
        return f"{kind.family.value}({kind.precision or MAX_PRECISION},{kind.scale})"
    return kind.family.value
