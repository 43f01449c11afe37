"""Where an asked derived metric's leaves on one model counted a row: what keeps its value the
one it has alone when the question asks other metrics of that model too.

A statement joining models groups each model's metrics alone (a *half*) and joins the halves
on period and dimension values. Asked alone, a derived metric's half on a model holds only its
own leaves there, so a group none of them counts a row of is no row of that half: the join
finds none, and the leaves read NULL there (docs/semantics.md). Asked beside another metric of
that model whose required filters differ, the half also holds the groups that metric counts,
and the leaves read their aggregate over nothing there (a count of 0) — which the derived
metric alone never saw. So such a half selects, per asked derived metric, how many of its rows
that metric's leaves there count (``COUNT(CASE WHEN <their required filters> THEN 1 END)``);
where it is zero, the derivation reads those leaves as NULL (:mod:`sutura.core.sql.derive`).

Nothing is selected where the answer cannot differ: a half holding only the derived metric's
leaves, one whose metrics share their required filters (each counts the same rows), one where
some leaf has no required filter (it counts every row of every group the half has), and a
half of a semi-additive or ranked (percentile) metric, whose statements group otherwise.
"""

from typing import NamedTuple

from sqlglot import exp

from sutura.core.definitions.model import Metric, RequiredFilter
from sutura.core.definitions.tree import leaves
from sutura.core.question.resolve import Resolved, halves, lookups
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.measures import filter_sets
from sutura.core.sql.ranked import ranks
from sutura.core.sql.semi import semi_additive_metric

COUNTED = "counted"
"""The last part of a counting column's name: ``<derived metric>.counted.<half>``."""


class Counted(NamedTuple):
    """A column a half selects: how many rows of a group ``metric``'s ``leaves`` count."""

    alias: str
    metric: str
    leaves: tuple[str, ...]
    filters: tuple[tuple[RequiredFilter, ...], ...]


def counted_per_half(resolved: Resolved) -> tuple[tuple[Counted, ...], ...]:
    """For each half of ``resolved``'s joined statement (in :func:`halves` order), the
    counting columns it selects."""
    metric, derived = lookups(resolved.metrics, resolved.derived)
    asked = [d.name for d in resolved.derived if d.name in resolved.metric_names]
    own = {name: {m.name for m in leaves(metric, derived, [name])} for name in asked}
    return tuple(
        tuple(
            found
            for name in asked
            if (found := _counted(half, name, own[name], position)) is not None
        )
        for position, half in enumerate(halves(resolved.metrics))
    )


def _counted(half: tuple[Metric, ...], name: str, own: set[str], position: int) -> Counted | None:
    mine = tuple(m for m in half if m.name in own)
    if not mine or len(mine) == len(half) or len(filter_sets(half)) == 1:
        return None
    if semi_additive_metric(half) is not None or ranks(half):
        return None
    sets = filter_sets(mine)
    if not all(sets):  # a leaf without required filters counts every row of the group
        return None
    alias = f"{name}.{COUNTED}.{position}"
    return Counted(alias, name, tuple(m.name for m in mine), sets)


def counted_column(counted: Counted, sql: ExpressionSql) -> exp.Expr:
    """``COUNT(CASE WHEN <the leaves' required filters> THEN 1 END) AS "<alias>"``."""
    matched = exp.or_(*(sql.required(filters) for filters in counted.filters), copy=False)
    count = exp.Count(this=exp.Case().when(matched, exp.Literal.number(1), copy=False))
    return count.as_(counted.alias, quoted=True, copy=False)
