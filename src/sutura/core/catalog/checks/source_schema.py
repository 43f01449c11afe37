"""A model checked against the table its source really has: every declared column, and type.

The source reports the columns a ``SELECT *`` of the model's table returns, with its own type
names (DuckDB ``DECIMAL(12,2)``, PostgreSQL ``numeric(12,2)``, Spark ``decimal(12,2)``). A
declared column must be there (as the engine matches a quoted name: PostgreSQL exactly, DuckDB
and Spark ignoring case). A declared type must be of the same family as the source's (integer,
decimal, floating point, text, date, timestamp, timestamp with time zone, boolean); a decimal's
declared scale must be the source's, because the scale is part of an answer's text (``0.10``).
A type outside these families is compared by its spelling alone.

>>> found = [("amount", "numeric(12,2)"), ("id", "integer")]
>>> model = Model(name="orders", source="main", table="orders",
...     columns=(Column(name="id", type="BIGINT"), Column(name="amount", type="DECIMAL(12,3)")))
>>> model_problems(model, found, "postgres")
[('columns[1].type', "declared 'DECIMAL(12,3)', but the source has 'numeric(12,2)'")]
"""

import re
from typing import Final, NamedTuple, assert_never

from sutura.core.catalog.error import quoted
from sutura.core.definitions.model import Column, Model
from sutura.core.nouns.dialect import Dialect

_FAMILIES: Final = {
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
_FAMILY_OF: Final = {name: family for family, names in _FAMILIES.items() for name in names.split()}
_PARAMETERS: Final = re.compile(r"\(([^)]*)\)")


class TypeName(NamedTuple):
    """A type as compared: its family (or its spelling), and a decimal's scale if written."""

    family: str
    scale: int | None


def type_name(spelled: str, dialect: Dialect) -> TypeName:
    """The comparable form of a type name as an engine or an author spells it.

    >>> type_name("character varying(20)", "postgres"), type_name("timestamp", "spark")
    (TypeName(family='text', scale=None), TypeName(family='timestamptz', scale=None))
    """
    parameters = _PARAMETERS.search(spelled)
    base = _PARAMETERS.sub("", spelled).strip().upper()
    base = re.sub(r"\s+", "_", base)
    family = _FAMILY_OF.get(base, base)
    if family == "timestamp" and base == "TIMESTAMP" and _instant_by_default(dialect):
        family = "timestamptz"
    scale = None
    if family == "decimal" and parameters is not None:
        parts = [part.strip() for part in parameters.group(1).split(",")]
        scale = int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else 0
    return TypeName(family, scale)


def _instant_by_default(dialect: Dialect) -> bool:
    """Whether the engine's plain ``TIMESTAMP`` is an instant (Spark's is; the others' is not)."""
    match dialect:
        case Dialect.SPARK:
            return True
        case Dialect.DUCKDB | Dialect.POSTGRES:
            return False
        case _:
            assert_never(dialect)


def _case_sensitive(dialect: Dialect) -> bool:
    """Whether the engine matches a quoted column name exactly (else ignoring case)."""
    match dialect:
        case Dialect.POSTGRES:
            return True
        case Dialect.DUCKDB | Dialect.SPARK:
            return False
        case _:
            assert_never(dialect)


def _agrees(declared: TypeName, found: TypeName) -> bool:
    if declared.family != found.family:
        return False
    return declared.scale is None or found.scale is None or declared.scale == found.scale


def model_problems(
    model: Model, found: list[tuple[str, str]], dialect: Dialect
) -> list[tuple[str, str]]:
    """Every (key path, problem) where ``model`` disagrees with the columns its table has."""
    fold = (lambda name: name) if _case_sensitive(dialect) else str.casefold
    types = {fold(name): spelled for name, spelled in found}
    problems: list[tuple[str, str]] = []
    for index, column in enumerate(model.columns):
        problems.extend(_column_problems(index, column, types.get(fold(column.name)), dialect))
    return problems


def _column_problems(
    index: int, column: Column, spelled: str | None, dialect: Dialect
) -> list[tuple[str, str]]:
    key = f"columns[{index}]"
    if spelled is None:
        return [(f"{key}.name", f"the table has no column {quoted(column.name)}")]
    if column.type is None or _agrees(type_name(column.type, dialect), type_name(spelled, dialect)):
        return []
    problem = f"declared {quoted(column.type)}, but the source has {quoted(spelled)}"
    return [(f"{key}.type", problem)]
