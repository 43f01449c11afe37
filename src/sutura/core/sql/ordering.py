"""How a statement's rows are ordered and cut, and where each metric's answer column is read.

``top``'s key first (if any), then period and dimensions ascending, NULLs always last: period
and dimensions identify a group, so the order is total and ``LIMIT`` cuts a tie the same way on
every engine. Shared by the grouped statement (:mod:`sutura.core.sql.compile`) and the one
that ranks rows first (:mod:`sutura.core.sql.ranked`).
"""

from typing import assert_never

from sqlglot import exp

from sutura.core.definitions.model import Metric
from sutura.core.nouns.dialect import Dialect, traits_of
from sutura.core.nouns.question import Direction
from sutura.core.question.resolve import PERIOD, Resolved, ResolvedTop
from sutura.core.sql.compiled import Output, Passthrough, Quotient, TermIndex, selected_at
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.measures import Parts, TermAt, order_key
from sutura.core.sql.parts import Binder

RANK = "top.rank"
"""The hidden column numbering a row within its period under ``top.per``."""


def kept_per_period(tree: exp.Select, n: int, binder: Binder) -> exp.Select:
    """The rows of ``tree`` ranked at most ``n`` in their period, by period then rank."""
    rank = exp.column(RANK, table="ranked", quoted=True)
    return (
        exp.select(exp.Star())
        .from_(tree.subquery(exp.to_identifier("ranked", quoted=True), copy=False), copy=False)
        .where(exp.LTE(this=rank, expression=binder.bind(n)), copy=False)
        .order_by(
            exp.Ordered(this=exp.Literal.number(1), nulls_first=False),
            exp.Ordered(this=rank.copy(), nulls_first=False),
            copy=False,
        )
    )


def output_of(parts: Parts, start: int) -> Output:
    """How the answer column of one metric is computed from its selected columns at ``start``."""
    if parts.quotient is None:
        return Passthrough(index=start)
    numerator, denominator, zero = parts.quotient
    return Quotient(
        numerator=term_index(numerator, start),
        denominator=None if denominator is None else term_index(denominator, start),
        zero_denominator=zero,
    )


def term_index(at: TermAt, start: int) -> TermIndex:
    value, count = at
    return TermIndex(value=start + value, count=None if count is None else start + count)


def order_by(
    resolved: Resolved,
    top: ResolvedTop | None,
    metrics: tuple[Metric, ...],
    shared: bool,
    sql: ExpressionSql,
    outputs: tuple[Output, ...],
    dialect: Dialect,
) -> list[exp.Ordered]:
    """``top``'s key first (if any), then period and dimensions ascending; NULLs always last.

    Period and dimensions identify a group, so the order is total: rows that tie on ``top``'s
    key are ordered by period, then dimensions, and ``LIMIT`` cuts a tie the same way on every
    engine. Without a grain and dimensions there is at most one row, and nothing to order.
    sqlglot writes ``NULLS LAST`` wherever the dialect's default differs (Spark sorts NULLs
    first ascending), so every dialect orders NULLs the same way.
    """
    width = len(resolved.keys)
    rest = [exp.Ordered(this=exp.Literal.number(i + 1), nulls_first=False) for i in range(width)]
    if top is None:
        return rest
    desc = descending(top.direction)
    if top.by == PERIOD:
        return [exp.Ordered(this=exp.Literal.number(1), desc=desc, nulls_first=False), *rest[1:]]
    index = resolved.metric_names.index(top.by)
    selected = selected_at(outputs[width + index])
    ordinal = 0 if selected is None else selected + 1
    key = order_key(
        metrics[index],
        inline=not shared,
        sql=sql,
        ordinal=ordinal,
        average_as_quotient=traits_of(dialect).rounded_averages,
    )
    return [exp.Ordered(this=key, desc=desc, nulls_first=False), *rest]


def ordered(tree: exp.Select, order: list[exp.Ordered]) -> exp.Select:
    """``tree`` with ORDER BY ``order``, or unchanged when there is nothing to order by."""
    return tree.order_by(*order, copy=False) if order else tree


def descending(direction: Direction) -> bool:
    """Whether ``direction`` ranks the largest first."""
    match direction:
        case Direction.DESC:
            return True
        case Direction.ASC:
            return False
        case _:
            assert_never(direction)
