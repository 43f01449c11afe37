"""Derived metrics: a dbt derived metric's ``expr`` over its input metrics as derived metrics
of the catalog (an op over two metrics carried over, times an exact scale), and a ratio of
two models as a derived ratio.

An ``expr`` of one op over two input metrics is one document, as it always was. One that
nests (``(a - b) / b``) is written as its inner operations first, each a derived metric of its
own named ``<metric>__part_<n>`` (numbered inner first, left to right; one written twice is
one part), and the metric itself over them; a constant factor (``100 * a / b``,
``a / b / 1000``) is the ``scale`` of the op it multiplies (:mod:`sutura.core.dbt.operations`).
The report says what was made of each such metric.
"""

from collections.abc import Mapping
from typing import Final, assert_never

from dbt_semantic_interfaces.protocols.metric import Metric
from returns.pipeline import is_successful

from sutura.core.catalog.draft import scalar
from sutura.core.catalog.error import quoted
from sutura.core.dbt.context import Carried, Context, Rewritten
from sutura.core.dbt.documents import add_document, mark, metric_prose
from sutura.core.dbt.operations import (
    Combined,
    Leaf,
    combined,
    derived_of,
    leaves,
    parts,
    spoken,
    written_scale,
)
from sutura.core.definitions.model import DerivedOp

_MAX_NAME: Final = 64


def add_derived(context: Context, metric: Metric, file: str, item: str) -> None:
    """A dbt derived metric as the derived metrics its ``expr`` is, or its line in the report."""
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
    expr = params.expr or ""
    read = derived_of(expr, {alias: given.name for alias, given in inputs.items()})
    if not is_successful(read):
        context.skip(file, item, f"its expr {quoted(expr)} {read.failure()}")
        return
    scaled = read.unwrap()
    missing = next((name for name in leaves(scaled.operand) if name not in context.carried), None)
    if missing is not None:
        context.skip(
            file, item, f"its input {missing} is not carried over as a metric (its line says why)"
        )
        return
    top = combined(scaled)
    if not is_successful(top):
        context.skip(file, item, f"its expr {quoted(expr)} {top.failure()}")
        return
    written = parts(top.unwrap())
    names = {node: f"{metric.name}__part_{n}" for n, node in enumerate(written[:-1], start=1)}
    names[written[-1]] = metric.name
    taken = next((n for n in names.values() if n != metric.name and _taken(context, n)), None)
    if taken is not None:
        context.skip(file, item, f"its part would be named {quoted(taken)}, {_why(taken)}")
        return
    for node in written:
        name = names[node]
        body = metric_prose(metric) if name == metric.name else _part_prose(metric, node, names)
        _write(context, name, node, names, file, body)
    if len(written) > 1 or written_scale(written[-1]) is not None:
        told = [written[-1], *written[:-1]]  # the metric, then its parts in order
        made = "; ".join(f"{names[node]} = {spoken(node, names)}" for node in told)
        context.rewritten.append(Rewritten(file, metric.name, f"its expr {quoted(expr)}: {made}"))


def write_derived(
    context: Context,
    metric: Metric,
    file: str,
    item: str,
    op: DerivedOp,
    first: str,
    second: str,
) -> None:
    """The derived metric ``op`` of the metrics ``first`` and ``second``, both carried over."""
    missing = next((n for n in (first, second) if n not in context.carried), None)
    if missing is not None:
        context.skip(file, item, f"its input {missing} is not carried over as a metric")
        return
    node = Combined(op, Leaf(first), Leaf(second))
    _write(context, metric.name, node, {node: metric.name}, file, metric_prose(metric))


def _write(
    context: Context,
    name: str,
    node: Combined,
    names: Mapping[Combined, str],
    file: str,
    body: str,
) -> None:
    first, second = (
        names[side] if isinstance(side, Combined) else side.metric
        for side in (node.first, node.second)
    )
    a, b = context.carried[first], context.carried[second]
    grains = [g for g in a.grains if g in b.grains]
    dimensions = [d for d in a.dimensions if d in b.dimensions]
    scale = written_scale(node)
    lines = [
        mark(file),
        "kind: metric",
        f"name: {scalar(name)}",
        "derived:",
        f"  op: {node.op}",
        f"  of: [{scalar(first)}, {scalar(second)}]",
        *_zero_denominator(node.op),
        *([f"  scale: {scalar(scale)}"] if scale is not None else []),
        f"grains: [{', '.join(grains)}]",
        f"dimensions: [{', '.join(scalar(d) for d in dimensions)}]",
        "audience: open",
    ]
    add_document(context, f"metrics/{name}.md", lines, body)
    context.carried[name] = Carried(grains, dimensions, None)


def _zero_denominator(op: DerivedOp) -> list[str]:
    """MetricFlow's derived ratio is NULL where its second metric is zero (or NULL)."""
    match op:
        case DerivedOp.RATIO:
            return ["  zero_denominator: yields_null"]
        case DerivedOp.DIFFERENCE | DerivedOp.SUM | DerivedOp.PRODUCT:
            return []
        case _:
            assert_never(op)


def _taken(context: Context, name: str) -> bool:
    return len(name) > _MAX_NAME or name in context.metric_names or name in context.carried


def _why(name: str) -> str:
    if len(name) > _MAX_NAME:
        return f"longer than {_MAX_NAME} characters"
    return "which a metric of the project is called"


def _part_prose(metric: Metric, node: Combined, names: Mapping[Combined, str]) -> str:
    return (
        f"A part of the metric {metric.name}: the {spoken(node, names)}. sutura import dbt"
        f" wrote it because a derived metric combines two metrics, and {metric.name}'s dbt expr"
        " combines more; ask for the metric, not its part. A re-import writes it again."
    )
