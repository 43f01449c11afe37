"""A model checked against the table its source really has: every declared column, and type.

The source reports the columns a ``SELECT *`` of the model's table returns, with its own type
names (DuckDB ``DECIMAL(12,2)``, PostgreSQL ``numeric(12,2)``, Spark ``decimal(12,2)``). A
declared column must be there (as the engine matches a quoted name: PostgreSQL exactly, DuckDB
and Spark ignoring case). A declared type must be of the same family as the source's (integer,
decimal, floating point, text, date, timestamp, timestamp with time zone, boolean); a decimal's
declared scale must be the source's, because the scale is part of an answer's text (``0.10``).
A type outside these families is compared by its spelling alone.

>>> found = [("amount", "numeric(12,2)"), ("id", "integer")]
>>> model = Model(name="orders", source="main", table=("orders",),
...     columns=(Column(name="id", type="BIGINT"), Column(name="amount", type="DECIMAL(12,3)")))
>>> model_problems(model, found, "postgres")
[('columns[1].type', "declared 'DECIMAL(12,3)', but the source has 'numeric(12,2)'")]
"""

import re
from collections.abc import Callable, Iterable
from typing import Final, NamedTuple

from sutura.core.catalog.error import quoted
from sutura.core.definitions.model import Column, Model
from sutura.core.expression.types import FAMILY_OF_NAME
from sutura.core.nouns.dialect import Dialect, traits_of

_FAMILY_OF: Final = FAMILY_OF_NAME  # one table of type names, shared with expressions
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
    if family == "timestamp" and base == "TIMESTAMP" and traits_of(dialect).instant_timestamps:
        family = "timestamptz"
    scale = None
    if family == "decimal" and parameters is not None:
        parts = [part.strip() for part in parameters.group(1).split(",")]
        scale = int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else 0
    return TypeName(family, scale)


def _agrees(declared: TypeName, found: TypeName) -> bool:
    if declared.family != found.family:
        return False
    return declared.scale is None or found.scale is None or declared.scale == found.scale


def column_fold(dialect: Dialect) -> Callable[[str], str]:
    """How the engine matches a quoted column name: as written, or ignoring case."""
    return (lambda name: name) if traits_of(dialect).case_sensitive_names else str.casefold


def model_problems(
    model: Model, found: list[tuple[str, str]], dialect: Dialect
) -> list[tuple[str, str]]:
    """Every (key path, problem) where ``model`` disagrees with the columns its table has."""
    fold = (lambda name: name) if traits_of(dialect).case_sensitive_names else str.casefold
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


_FIXED_LENGTH: Final = frozenset({"CHAR", "BPCHAR", "CHARACTER", "NCHAR"})


def padded_columns(model: Model, found: list[tuple[str, str]], dialect: Dialect) -> set[str]:
    """The model's columns whose source type is fixed-length text (``CHAR(n)``), which the
    engine may return blank-padded to ``n`` (PostgreSQL and Spark do; DuckDB has none).

    >>> model = Model(name="nation", source="main", table="nation",
    ...     columns=(Column(name="n_name"), Column(name="n_comment")))
    >>> sorted(padded_columns(model, [("n_name", "bpchar(25)"), ("n_comment", "text")], "postgres"))
    ['n_name']
    """
    return _columns_whose(model, found, dialect, _fixed_length)


def text_columns(model: Model, found: list[tuple[str, str]], dialect: Dialect) -> set[str]:
    """The model's columns whose source type is text of any kind (``VARCHAR``, ``TEXT``,
    ``CHAR(n)``, Spark's ``STRING``), declared or not: a dimension over one is ordered by code
    point.

    >>> model = Model(name="nation", source="main", table="nation",
    ...     columns=(Column(name="n_name"), Column(name="n_key")))
    >>> found = [("n_name", "character varying"), ("n_key", "int4")]
    >>> sorted(text_columns(model, found, "postgres"))
    ['n_name']
    """
    return _columns_whose(
        model,
        found,
        dialect,
        lambda spelled: spelled is not None and type_name(spelled, dialect).family == "text",
    )


def _columns_whose(
    model: Model,
    found: list[tuple[str, str]],
    dialect: Dialect,
    holds: Callable[[str | None], bool],
) -> set[str]:
    """The model's columns whose source type (None where the source has no such column)
    ``holds``, matched as the engine matches a quoted name."""
    fold = column_fold(dialect)
    types = {fold(name): spelled for name, spelled in found}
    return {column.name for column in model.columns if holds(types.get(fold(column.name)))}


def model_columns(model: Model, names: Iterable[str], dialect: Dialect) -> set[str]:
    """The model's columns among the source's columns ``names``, matched as the engine matches
    a quoted name.

    >>> model = Model(name="nation", source="main", table="nation",
    ...     columns=(Column(name="n_name"), Column(name="N_Key")))
    >>> sorted(model_columns(model, ["N_NAME", "N_Key"], "postgres"))
    ['N_Key']
    >>> sorted(model_columns(model, ["N_NAME", "N_Key"], "duckdb"))
    ['N_Key', 'n_name']
    """
    fold = column_fold(dialect)
    wanted = {fold(name) for name in names}
    return {column.name for column in model.columns if fold(column.name) in wanted}


def _fixed_length(spelled: str | None) -> bool:
    if spelled is None:
        return False
    base = re.sub(r"\s+", "_", _PARAMETERS.sub("", spelled).strip().upper())
    return base in _FIXED_LENGTH
