"""Dimensions as written: declared in full (on a model or a metric), or named by a metric.

A model's ``dimensions`` declare **shared** dimensions, each in the shape a metric's has
(``{name, column, via?, values?, description?}`` or ``{name, expression, type, values?,
description?}``), read from the model itself. A metric's ``dimensions`` are absent (it uses
every shared dimension its model and the models it reaches declare), or a list that narrows:
each item a name of a shared dimension (``region``, or ``customers.region`` to say whose), or
a whole mapping declaring a dimension of the metric's own. Which names resolve is checked with
the whole catalog (:mod:`sutura.core.catalog.checks.shared`).
"""

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.expression import build_expression, via_chain
from sutura.core.catalog.document.written import WrittenDimension
from sutura.core.catalog.error import quoted
from sutura.core.definitions.model import Dimension
from sutura.core.expression.types import Family
from sutura.core.nouns.frozen import Frozen

PERIOD = "period"  # the answer's own period column; no dimension may take its name


class SharedName(Frozen, frozen=True):
    """A metric's item naming a shared dimension: its name, or its model's name, a dot and its
    name (which model's is meant when two declare it); ``index`` is its place in the written
    list (the key of its problems, and of the dimension it resolves to)."""

    name: str
    index: int
    model: str | None = None


class SharedUses(Frozen, frozen=True):
    """Which shared dimensions a metric document uses: ``every`` one it reaches (no
    ``dimensions`` key), or those it ``named`` in its list."""

    every: bool
    named: tuple[SharedName, ...] = ()


def build_dimension(check: Checker, key: str, written: WrittenDimension) -> Dimension:
    """A dimension declared in full at ``key`` (on a model or a metric)."""
    name = check.name(f"{key}.name", written.name)
    if name == PERIOD:
        check.fail(
            f"{key}.name", "a dimension may not be called period (the answer's period column)"
        )
    if written.column is None and written.expression is None:
        check.fail(f"{key}.column", "missing required key")
    form = check.one_of(
        key, {"column": written.column is not None, "expression": written.expression is not None}
    )
    values = _values(check, f"{key}.values", written.values)
    description = written.description or ""
    if form == "column" and written.column is not None:
        if written.type is not None:
            check.fail(f"{key}.type", "type goes with expression; a column's type is its model's")
        return Dimension(
            name=name,
            column=check.identifier(f"{key}.column", written.column),
            via=via_chain(check, f"{key}.via", written.via),
            values=values,
            description=description,
        )
    assert written.expression is not None  # one_of chose expression
    if written.via is not None:
        check.fail(f"{key}.via", "via goes with column; in an expression, write it on the column")
    if written.type is None:
        check.fail(f"{key}.type", "missing required key (an expression dimension declares it)")
    return Dimension(
        name=name,
        expression=build_expression(check, f"{key}.expression", written.expression),
        type=check.choice(f"{key}.type", written.type, Family),
        values=values,
        description=description,
    )


def model_dimensions(check: Checker, written: list[WrittenDimension]) -> tuple[Dimension, ...]:
    """A model's shared dimensions, none named twice."""
    built = tuple(build_dimension(check, f"dimensions[{i}]", d) for i, d in enumerate(written))
    check.unique("dimensions[{}].name", [d.name for d in built], "the dimension")
    return built


def metric_dimensions(
    check: Checker, written: list[str | WrittenDimension] | None
) -> tuple[tuple[Dimension, ...], SharedUses]:
    """A metric's own dimensions (declared in full) and the shared ones it names, if any."""
    if written is None:
        return (), SharedUses(every=True)
    own: list[Dimension] = []
    named: list[SharedName] = []
    for index, item in enumerate(written):
        key = f"dimensions[{index}]"
        if isinstance(item, str):
            named.append(_shared_name(check, key, index, item))
        else:
            own.append(build_dimension(check, key, item))
    return tuple(own), SharedUses(every=False, named=tuple(named))


def _shared_name(check: Checker, key: str, index: int, written: str) -> SharedName:
    model, dot, name = written.rpartition(".")
    if not dot:
        return SharedName(name=check.name(key, name), index=index)
    if "." in model:
        check.fail(key, f"{quoted(written)}: name a shared dimension as name or model.name")
    return SharedName(name=check.name(key, name), index=index, model=check.name(key, model))


def _values(check: Checker, key: str, written: list[str] | None) -> tuple[str, ...] | None:
    if written is None:
        return None
    if not written:
        check.fail(key, "list at least one value, or omit values for a group-by-only dimension")
    check.unique(key + "[{}]", written, "the value")
    return tuple(written)
