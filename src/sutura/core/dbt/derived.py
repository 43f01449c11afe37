"""Derived metrics: a dbt derived metric's ``expr`` over its input metrics as a derived
metric of the catalog (an op over two metrics carried over)."""

from collections.abc import Mapping
from typing import Final

from dbt_semantic_interfaces.protocols.metric import Metric
from returns.pipeline import is_successful
from sqlglot import exp

from sutura.core.catalog.draft import scalar
from sutura.core.catalog.error import quoted
from sutura.core.dbt.context import Carried, Context
from sutura.core.dbt.documents import MARK, add_document, metric_prose
from sutura.core.dbt.sql_expr import SqlColumn, parse

_DERIVED_OPS: Final[dict[type[exp.Expr], str]] = {
    exp.Add: "sum",
    exp.Sub: "difference",
    exp.Mul: "product",
    exp.Div: "ratio",
}


def add_derived(
    context: Context, metric: Metric, file: str, item: str, metrics: Mapping[str, Metric]
) -> None:
    params = metric.type_params
    inputs = {(given.alias or given.name): given for given in params.metrics or []}
    for given in inputs.values():
        if given.offset_window is not None or given.offset_to_grain is not None:
            context.skip(
                file,
                item,
                f"its input {given.name} is offset in time; sutura asks an earlier period per"
                " question (--compare previous_period or previous_year)",
            )
            return
        if given.filter is not None and given.filter.where_filters:
            context.skip(file, item, f"its input {given.name} carries a filter of its own")
            return
    parsed = parse(params.expr or "")
    if not is_successful(parsed):
        context.skip(file, item, parsed.failure())
        return
    node = parsed.unwrap()
    while isinstance(node, exp.Paren):
        node = node.this
    op = _DERIVED_OPS.get(type(node))
    sides = [node.this, node.expression] if isinstance(node, exp.Binary) and op is not None else []
    names = [s.name for s in sides if isinstance(s, SqlColumn) and not s.table]
    if op is None or len(names) != 2 or any(n not in inputs for n in names) or len(set(names)) < 2:
        context.skip(
            file,
            item,
            f"its expr {quoted(params.expr or '')} is not one of + - * / between two of its"
            " metrics, the four operations a derived metric has",
        )
        return
    first, second = (inputs[n].name for n in names)
    if first == second:
        context.skip(file, item, "it combines one metric with itself")
        return
    write_derived(context, metric, file, item, op, first, second)


def write_derived(
    context: Context, metric: Metric, file: str, item: str, op: str, first: str, second: str
) -> None:
    referents = [context.carried.get(first), context.carried.get(second)]
    if (
        referents[0] is None
        or referents[1] is None
        or None
        in (
            referents[0].model,
            referents[1].model,
        )
    ):
        missing = first if referents[0] is None or referents[0].model is None else second
        context.skip(
            file, item, f"its input {missing} is not carried over as a metric with a measure"
        )
        return
    a, b = referents[0], referents[1]
    grains = [g for g in a.grains if g in b.grains]
    dimensions = [d for d in a.dimensions if d in b.dimensions]
    lines = [
        MARK.format(file=file),
        "kind: metric",
        f"name: {scalar(metric.name)}",
        "derived:",
        f"  op: {op}",
        f"  of: [{scalar(first)}, {scalar(second)}]",
        *(["  zero_denominator: yields_null"] if op == "ratio" else []),
        f"grains: [{', '.join(grains)}]",
        f"dimensions: [{', '.join(scalar(d) for d in dimensions)}]",
        "audience: open",
    ]
    add_document(context, f"metrics/{metric.name}.md", lines, metric_prose(metric))
    context.carried[metric.name] = Carried(grains, dimensions, None)
