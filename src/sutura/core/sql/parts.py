"""Building blocks of statements: bind parameters, required filters, periods, tables and joins.

Everything here builds sqlglot expressions; no value is ever written into SQL text. Identifiers
are always quoted. The base model is aliased ``t0``; each joined model gets the next ``tN``.
Required filters, expressions and predicates are built by :mod:`sutura.core.sql.expression`.
"""

import functools
from typing import NamedTuple, TypeVar, assert_never

from sqlglot import exp

from sutura.core.definitions.model import Catalog, Model, Relationship, TablePath
from sutura.core.nouns.grain import Grain

BASE_ALIAS = "t0"

_T = TypeVar("_T")


def require(found: _T | None, what: str) -> _T:
    """``found``, or a LookupError naming what the catalog does not define."""
    if found is None:
        raise LookupError(f"the catalog does not define {what}")
    return found


def sql_type(name: str, dialect: str | None = None) -> exp.DataType:
    """The type ``name`` as ``exp.DataType.build`` reads it, parsed once: building it parses
    the name every time, which was a fifth of an extent statement's cost.

    >>> sql_type("DATE") == exp.DataType.build("DATE"), sql_type("DATE") is sql_type("DATE")
    (True, False)
    """
    return _parsed_type(name, dialect).copy()


@functools.cache
def _parsed_type(name: str, dialect: str | None) -> exp.DataType:
    return exp.DataType.build(name, dialect=dialect)


def column(name: str, table: str = BASE_ALIAS) -> exp.Column:
    """The quoted column ``"table"."name"``."""
    return exp.column(name, table=table, quoted=True)


def _table(path: TablePath, alias: str) -> exp.Table:
    """A quoted table reference: each part of the path one quoted identifier, whatever it
    holds (a dot in a part is part of its name), as ``[[catalog.]schema.]table``."""
    *qualifiers, last = path
    schema = qualifiers.pop() if qualifiers else None
    catalog = qualifiers.pop() if qualifiers else None
    return exp.Table(
        this=exp.to_identifier(last, quoted=True),
        db=None if schema is None else exp.to_identifier(schema, quoted=True),
        catalog=None if catalog is None else exp.to_identifier(catalog, quoted=True),
        alias=exp.TableAlias(this=exp.to_identifier(alias, quoted=True)),
    )


class Binder:
    """Collects bound values in the order their placeholders are created.

    Callers build the statement in textual order (SELECT list, WHERE, ORDER BY, LIMIT), so
    creation order is placeholder order.
    """

    def __init__(self) -> None:
        self._values: list[object] = []

    def bind(self, value: object) -> exp.Placeholder:
        """A positional placeholder standing for ``value``."""
        self._values.append(value)
        return exp.Placeholder()

    def values(self, placeholders: int) -> tuple[object, ...]:
        """The bound values, checked against the number of placeholders in the statement."""
        if placeholders != len(self._values):
            raise AssertionError("every placeholder must have exactly one bound value")
        return tuple(self._values)


class Join(NamedTuple):
    """One LEFT or INNER join of a relationship's target model."""

    alias: str
    parent: str
    relationship: Relationship
    target: Model
    inner: bool


class Joins:
    """The joins a question needs, one per distinct ``via`` path prefix, in first-use order."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._joins: dict[tuple[str, ...], Join] = {}

    def add(self, via: tuple[str, ...], *, inner: bool) -> None:
        """Join every relationship along ``via``; INNER along the whole path when ``inner``."""
        for depth in range(1, len(via) + 1):
            path = via[:depth]
            known = self._joins.get(path)
            if known is None:
                relationship = require(self._catalog.relationship(path[-1]), path[-1])
                target = require(self._catalog.model(relationship.target_model), "a model")
                alias = f"t{len(self._joins) + 1}"
                known = Join(alias, self.alias(path[:-1]), relationship, target, inner=False)
            self._joins[path] = known._replace(inner=known.inner or inner)

    def alias(self, via: tuple[str, ...]) -> str:
        """The alias of the model reached along ``via`` (``t0`` for the base model)."""
        return BASE_ALIAS if not via else self._joins[via].alias

    def all(self) -> tuple[Join, ...]:
        """Every join, in alias order."""
        return tuple(self._joins.values())


def base_table(model: Model) -> exp.Table:
    """The base model's table, aliased ``t0``."""
    return _table(model.table, BASE_ALIAS)


def join_clause(join: Join) -> tuple[exp.Table, exp.Expr, str]:
    """The table, the ON condition and the join type of one join."""
    keys = [
        column(pair.origin, join.parent).eq(column(pair.target, join.alias))
        for pair in join.relationship.keys
    ]
    return (
        _table(join.target.table, join.alias),
        exp.and_(*keys, copy=False),
        "inner" if join.inner else "left",
    )


def period_start(grain: Grain, time_column: str, table: str = BASE_ALIAS) -> exp.Expr:
    """``CAST(DATE_TRUNC('<unit>', t0."time") AS DATE)``: the first day of the row's period."""
    unit = exp.Literal.string(_truncation_unit(grain))
    trunc = exp.Anonymous(this="DATE_TRUNC", expressions=[unit, column(time_column, table)])
    return exp.Cast(this=trunc, to=sql_type("DATE"))


def _truncation_unit(grain: Grain) -> str:
    """The ``DATE_TRUNC`` unit of a grain; every dialect starts a ``week`` on Monday (ISO)."""
    match grain:
        case Grain.DAY:
            return "day"
        case Grain.WEEK:
            return "week"
        case Grain.MONTH:
            return "month"
        case Grain.QUARTER:
            return "quarter"
        case Grain.YEAR:
            return "year"
        case _:
            assert_never(grain)
