"""The plan of a compiled statement: what it reads and how, in plain lines for operators.

Values are bound parameters and never appear here, except the resolved range bounds.
"""

from typing import assert_never

from sutura.core.definitions.model import (
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    Metric,
    Model,
    RequiredFilter,
    TimeRule,
    table_label,
)
from sutura.core.expression.formula import column_formula, predicate_formula
from sutura.core.question.resolve import Resolved, Running, Trailing
from sutura.core.sql.measures import filter_sets
from sutura.core.sql.parts import Join


def plan_lines(
    resolved: Resolved, model: Model, joins: tuple[Join, ...], *, shared: bool
) -> tuple[str, ...]:
    """Human-readable lines: model, joins, required filters, grain, range, filters, ordering.

    Args:
        resolved: The question being compiled.
        model: The metrics' model.
        joins: The joins the statement makes.
        shared: Whether the required filters are shared and applied in WHERE.

    Returns:
        One line per fact, in statement order.
    """
    metrics = resolved.metrics
    lines = [
        f"metrics: {', '.join(resolved.metric_names)}",
        f"model: {model.name} (table {table_label(model.table)} in source {model.source})",
    ]
    for join in joins:
        kind = "INNER JOIN, filtered" if join.inner else "LEFT JOIN"
        lines.append(
            f"join: {join.target.name} as {join.alias} via {join.relationship.name} ({kind})"
        )
    lines.extend(_required_lines(metrics, shared))
    if resolved.grain is None:
        lines.append("grain: none (one row per group over exactly the range)")
    else:
        lines.append(f"grain: {resolved.grain.value} (the range is widened to whole periods)")
    lines.append(
        f"range: {column_formula(metrics[0].time)} from {resolved.start.isoformat()} (inclusive)"
        f" to {resolved.end.isoformat()} (exclusive)"
    )
    lines.extend(_semi_lines(resolved))
    lines.extend(_derived_lines(resolved))
    lines.extend(
        f"filter: {f.dimension} {f.op.value}"
        + (f" {len(f.values)} bound value(s)" if f.values else "")
        for f in resolved.filters
    )
    lines.append(_ordering_line(resolved))
    return tuple(lines)


def _required_lines(metrics: tuple[Metric, ...], shared: bool) -> list[str]:
    """One line for shared required filters, or one per metric that has its own."""
    if shared:
        described = _describe_filters(metrics[0].required_filters)
        return [f"required filters (WHERE): {described}"] if described else []
    lines = [
        f"required filters of {m.name} (inside its aggregates): "
        + _describe_filters(m.required_filters)
        for m in metrics
        if m.required_filters
    ]
    if all(filter_sets(metrics)):
        lines.append("groups: only those where a row passes some metric's required filters")
    return lines


def _describe_filters(filters: tuple[RequiredFilter, ...]) -> str:
    """The required filters in words; their values are bound parameters, not shown."""
    return "; ".join(_describe_filter(f) for f in filters)


def _describe_filter(item: RequiredFilter) -> str:
    match item:
        case FilterEquals():
            return f"{item.column} equals a bound value"
        case FilterNotEquals():
            return f"{item.column} differs from a bound value (NULL differs)"
        case FilterIsTrue():
            return f"{item.column} is true"
        case FilterIsNotNull():
            return f"{item.column} is not null"
        case FilterPredicate():
            return predicate_formula(item.predicate, bound=True)
        case _:
            assert_never(item)


def _semi_lines(resolved: Resolved) -> list[str]:
    """How each semi-additive metric takes one value per entity and period."""
    lines = []
    for metric in resolved.metrics:
        semi = metric.semi_additive
        if semi is None:
            continue
        entity = ", ".join(semi.entity)
        at = f"{metric.time_column} of each {entity}"
        match semi.rule:
            case TimeRule.LAST:
                taken = f"the rows at the greatest {at}"
            case TimeRule.FIRST:
                taken = f"the rows at the least {at}"
            case TimeRule.MIN:
                taken = f"the smallest value of each {entity}"
            case TimeRule.MAX:
                taken = f"the largest value of each {entity}"
            case _:
                assert_never(semi.rule)
        lines.append(
            f"semi-additive: {metric.name} takes {taken} in each period (window or grouped"
            " subquery), then adds them up across entities"
        )
    return lines


def _derived_lines(resolved: Resolved) -> list[str]:
    """The ranges read besides the question's, and what is derived from the rows."""
    lines: list[str] = []
    for derived in resolved.derived:
        first, second = derived.of
        zero = "" if derived.zero_denominator is None else f"; a zero {second}: "
        zero += "" if derived.zero_denominator is None else derived.zero_denominator.value
        scale = "" if derived.scale is None else f", times {derived.scale}"
        fetched = (
            "both fetched by this statement"
            if all(resolved.metric_named(n) for n in derived.of)
            else "each fetched by this statement or derived from it"
        )
        lines.append(
            f"derived: {derived.name} = {derived.op.value} of {first} and {second}{scale},"
            f" exact, from both in each row ({fetched}{zero})"
        )
    if resolved.read_ranges != ((resolved.start, resolved.end),):
        lines.extend(
            f"read: from {start.isoformat()} (inclusive) to {end.isoformat()} (exclusive)"
            for start, end in resolved.read_ranges
        )
    if resolved.compare is not None:
        lines.append(
            f"compare: each row with its {resolved.compare.value.replace('_', ' ')}"
            " (prior, change, relative change; exact)"
        )
    match resolved.window:
        case Running():
            lines.append("window: running total from the range start")
        case Trailing(periods=periods):
            lines.append(f"window: total of the last {periods} periods ending with each row's")
        case None:
            pass
        case _:
            assert_never(resolved.window)
    if resolved.fill:
        lines.append("fill: every period has a row (zero for sums and counts, else NULL)")
    return lines


def _ordering_line(resolved: Resolved) -> str:
    """How rows are ordered, and how many ``top`` keeps."""
    rest = ", ".join(resolved.keys)
    if resolved.top is None:
        return f"order: {rest} ascending, NULLs last" if rest else "order: one row at most"
    top = resolved.top
    if top.per_period:
        return (
            f"order: period ascending, then {top.by} {top.direction.value} NULLs last, then"
            f" {', '.join(resolved.dimensions) or 'nothing else'} ascending;"
            f" keep the first {top.n} rows of each period"
        )
    return (
        f"order: {top.by} {top.direction.value} NULLs last, then {rest} ascending;"
        f" keep the first {top.n} rows"
        if rest
        else f"order: {top.by} {top.direction.value} NULLs last; keep the first {top.n} rows"
    )
