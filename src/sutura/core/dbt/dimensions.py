"""Dimensions: each a shared dimension of its model, named as MetricFlow names it; what a
filter on a model may read (along relationships); which shared dimensions a metric may be
asked by; and a measure's ``non_additive_dimension`` as a metric's ``semi_additive`` key."""

from collections.abc import Callable, Mapping
from functools import partial
from typing import Final

from dbt_semantic_interfaces.protocols.dimension import Dimension
from dbt_semantic_interfaces.protocols.measure import Measure
from dbt_semantic_interfaces.type_enums.aggregation_type import AggregationType
from dbt_semantic_interfaces.type_enums.dimension_type import DimensionType
from dbt_semantic_interfaces.type_enums.time_granularity import TimeGranularity
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success
from sqlglot import exp

from sutura.core.catalog.draft import scalar
from sutura.core.catalog.error import quoted
from sutura.core.dbt.context import Context, FilterDimension, Model
from sutura.core.dbt.sql_expr import SqlColumn, expression, parse
from sutura.core.dbt.tree import Tree, flow, with_via
from sutura.core.expression.types import declared_type

_MAX_HOPS: Final = 2
_MAX_NAME: Final = 64
_PATHS_KEPT: Final = 2
_TREE_TYPES: Final = {"date_of": "date", "month": "date", "quarter": "date"}


def bare_column(text: str | None, fallback: str, columns: Mapping[str, str]) -> str | None:
    """The column an ``expr`` names when it is only a column (or absent: the element's name)."""
    if text is None:
        return fallback if fallback in columns else None
    parsed = parse(text)
    if not is_successful(parsed):
        return None
    node = parsed.unwrap()
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, SqlColumn) and not node.table and node.name in columns:
        return node.name
    return None


def column_resolver(model: Model) -> Callable[[str], Result[Tree, str]]:
    def resolve(name: str) -> Result[Tree, str]:
        if name in model.columns:
            return Success({"column": name})
        return Failure(
            f"reads {quoted(name)}, which the table of {model.name} has no column called"
        )

    return resolve


def dimension_tree(model: Model, dimension: Dimension) -> Result[Tree, str]:
    return expression(dimension.expr or dimension.name, column_resolver(model))


def _at_its_grain(dimension: Dimension, tree: Tree) -> Result[Tree, str]:
    """A time dimension as MetricFlow groups by it: its value at its own grain (a day, a
    month, a quarter); the grain of a value that is already a day, month or quarter stands."""
    if dimension.type != DimensionType.TIME:
        return Success(tree)
    if isinstance(tree, dict) and set(tree) & set(_TREE_TYPES):
        return Success(tree)
    params = dimension.type_params
    grain = params.time_granularity.value if params is not None else "day"
    part = {"day": "date_of", "month": "month", "quarter": "quarter"}.get(grain)
    if part is None:
        return Failure(f"a time dimension at the grain {grain} has no counterpart")
    return Success({part: tree})


def _tree_type(tree: Tree, model: Model) -> str | None:
    """The declared type of what ``tree`` computes, where it is plain to tell."""
    if not isinstance(tree, dict) or len(tree) != 1:
        return None
    ((kind, inner),) = tree.items()
    if kind in _TREE_TYPES:
        return _TREE_TYPES[kind]
    if kind == "column" and isinstance(inner, str):
        declared = declared_type(model.columns.get(inner, ""))
        return None if declared is None else declared.family.value
    if kind in {"coalesce", "case"} and isinstance(inner, list) and inner:
        first = inner[0]
        if kind == "case" and isinstance(first, dict):
            first = first.get("then", "")
        return _tree_type(first, model)
    return None


def _local_dims(context: Context, model: Model) -> list[tuple[str, Tree, str | None, bool]]:
    """Each dimension of ``model`` as (name, tree, declared type, bare column), once."""
    found = []
    for dimension in model.semantic.dimensions:
        tree = dimension_tree(model, dimension).bind(partial(_at_its_grain, dimension))
        if not is_successful(tree):
            key = (model.name, dimension.name)
            if key not in context.refused_dims:
                context.refused_dims.add(key)
                context.skip(model.file, f"dimension {dimension.name}", tree.failure())
            continue
        value = tree.unwrap()
        bare = isinstance(value, dict) and set(value) == {"column"}
        found.append((dimension.name, value, _tree_type(value, model), bare))
    return found


def _spec(name: str, tree: Tree, kind: str | None, bare: bool) -> dict[str, Tree] | None:
    """How a model declares the dimension ``name``: a column, or an expression with its
    type; None when its type is not plain to tell."""
    if bare and isinstance(tree, dict):
        return {"name": name, "column": tree["column"]}
    if kind is None:
        return None
    return {"name": name, "expression": tree, "type": kind}


def shared_dimensions(context: Context, model: Model) -> list[str]:
    """The ``dimensions:`` lines of a model document: each dimension of its semantic model,
    shared with every metric that reaches the model, named as MetricFlow names it from the
    model's own metrics (its primary entity, two underscores, the dimension)."""
    declared: list[str] = []
    lines: list[str] = []
    local = _local_dims(context, model)
    if local and model.entity is None:
        for name, *_ in local:
            context.skip(
                model.file,
                f"dimension {name}",
                "its semantic model has no primary entity, which MetricFlow names a dimension by",
            )
        local = []
    for name, tree, kind, bare in local:
        full = f"{model.entity}__{name}"
        spec = _spec(full, tree, kind, bare)
        reason = (
            "its expr's type is not plain to tell (a shared dimension that computes a value"
            " declares its type)"
            if spec is None
            else "its name is longer than 64 characters"
            if len(full) > _MAX_NAME
            else f"its name {quoted(full)} is a metric's or the period's"
            if full in context.metric_names or full == "period"
            else None
        )
        if reason is not None or spec is None:
            context.skip(model.file, f"dimension {name}", reason or "")
            continue
        declared.append(full)
        lines.append(f"  - {flow(spec)}")
        context.carried_dims.add((model.name, name))
    context.shared[model.name] = declared
    return ["dimensions:", *lines] if lines else []


def filter_dimensions(context: Context, start: str) -> list[FilterDimension]:
    """Every dimension a filter of a metric on ``start`` may read, named as MetricFlow names
    it (the entities walked and the dimension), with the tree that reads it from ``start``."""
    dims: list[FilterDimension] = []
    seen: set[str] = set()

    def walk(current: str, prefix: str, via: tuple[str, ...], visited: set[str]) -> None:
        model = context.models[current]
        for name, tree, _, _ in _local_dims(context, model):
            full = f"{prefix}__{name}"
            if full not in seen:
                seen.add(full)
                dims.append(FilterDimension(full, with_via(tree, via)))
        if len(via) >= _MAX_HOPS:
            return
        for entity, relationship, target in context.joins.get(current, []):
            if target not in visited:
                step = f"{prefix}__{entity}" if via else entity
                walk(target, step, (*via, relationship), visited | {target})

    entity = context.models[start].entity
    if entity is not None:
        walk(start, entity, (), {start})
    return dims


def _reach(context: Context, start: str) -> dict[str, list[tuple[str, ...]]]:
    """The models a metric on ``start`` reaches along relationships, nearest first, each with
    its paths (two kept: a second says there are several), as the catalog walks them."""
    outgoing: dict[str, list[tuple[str, str]]] = {}
    for origin, joins in context.joins.items():
        for _, relationship, target in joins:
            outgoing.setdefault(origin, []).append((relationship, target))
    for joins_of in outgoing.values():
        joins_of.sort()
    paths: dict[str, list[tuple[str, ...]]] = {start: [()]}
    frontier: list[tuple[str, tuple[str, ...], frozenset[str]]] = [(start, (), frozenset({start}))]
    while frontier:
        following = []
        for current, path, visited in frontier:
            for relationship, target in outgoing.get(current, []):
                known = paths.setdefault(target, [])
                if target in visited or len(known) >= _PATHS_KEPT:
                    continue
                known.append((*path, relationship))
                following.append((target, (*path, relationship), visited | {target}))
        frontier = following
    return {model: found for model, found in paths.items() if found}


def emit_dimensions(
    context: Context, model: str
) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """A metric's ``dimensions:`` lines, the shared dimensions it may then be asked by, and
    each one it reaches but cannot use (with the reason). Every shared dimension of every
    model it reaches is its own when the key is absent; where one is declared by two models
    or reached along two paths the catalog refuses it by name, so the metric then lists the
    others by name and the report names the rest."""
    offered: dict[str, list[tuple[str, list[tuple[str, ...]]]]] = {}
    for reached, paths in _reach(context, model).items():
        for name in context.shared.get(reached, []):
            offered.setdefault(name, []).append((reached, paths))
    usable: list[str] = []
    refused: list[tuple[str, str]] = []
    for name, offers in offered.items():
        if len(offers) > 1:
            models = " and ".join(quoted(m) for m, _ in offers)
            refused.append((name, f"the models {models} both declare it"))
        elif len(offers[0][1]) > 1:
            refused.append((name, f"the model {quoted(offers[0][0])} is reached along two paths"))
        else:
            usable.append(name)
    if not refused:
        return [], usable, []
    lines = [f"  - {scalar(name)}" for name in usable]
    return ["dimensions:", *lines] if lines else ["dimensions: []"], usable, refused


_RULES: Final = {"max": "last", "min": "first"}


def non_additive(model: Model, measure: Measure) -> Result[dict[str, Tree] | None, str]:
    """A measure's ``non_additive_dimension`` as a metric's ``semi_additive`` key, where the
    two mean the same rows; None for a measure that adds up.

    MetricFlow keeps, in each period asked and each group of ``window_groupings``, the rows at
    the greatest (``max``) or least (``min``) value of the dimension truncated to its own
    grain, every row at it, then aggregates them. sutura's ``last`` (``first``) keeps, per
    period and per value of the entity's columns, the rows at the greatest (least) value of the
    metric's time column, every row at it, and adds them up. They are one rule when the
    dimension is the measure's ``agg_time_dimension`` read as a DATE column at the grain of a
    day (so truncating changes no value), the groupings are entities of the model's own
    columns (at least one), and the aggregate adds up across them (sum, count, sum_boolean).
    """
    spec = measure.non_additive_dimension
    if spec is None:
        return Success(None)
    said = f"its non_additive_dimension ({spec.name}, {spec.window_choice.value})"
    rule = _RULES.get(spec.window_choice.value)
    if rule is None:
        return Failure(f"{said}: a window_choice is min or max")
    semantic = model.semantic
    agg_time = measure.agg_time_dimension or (
        semantic.defaults.agg_time_dimension if semantic.defaults else None
    )
    if spec.name != agg_time:
        return Failure(
            f"{said} is not its agg_time_dimension; sutura's semi-additive rule takes the"
            " last or first instant of the metric's own time column"
        )
    dimension = next((d for d in semantic.dimensions if d.name == spec.name), None)
    params = dimension.type_params if dimension is not None else None
    column = (
        None if dimension is None else bare_column(dimension.expr, dimension.name, model.columns)
    )
    declared = None if column is None else declared_type(model.columns[column])
    grain = params.time_granularity if params is not None else TimeGranularity.DAY
    if declared is None or declared.family.value != "date" or grain != TimeGranularity.DAY:
        return Failure(
            f"{said} is not a DATE column at the grain of a day: MetricFlow keeps the rows of"
            " the last (first) day, sutura those of the last (first) instant of the column,"
            " which differ where a column holds times"
        )
    if not spec.window_groupings:
        return Failure(
            f"{said} has no window_groupings: MetricFlow keeps the rows at the period's last"
            " (first) day across all rows, sutura each entity's own last (first) rows"
        )
    entities = {e.name: e for e in semantic.entities}
    columns: list[str] = []
    for grouping in spec.window_groupings:
        entity = entities.get(grouping)
        found = None if entity is None else bare_column(entity.expr, entity.name, model.columns)
        if found is None:
            return Failure(
                f"{said} groups by {quoted(grouping)}, which is not an entity of one"
                f" column of {model.name}"
            )
        columns.append(found)
    if measure.agg not in {AggregationType.SUM, AggregationType.COUNT, AggregationType.SUM_BOOLEAN}:
        return Failure(
            f"{said} takes each group's rows and aggregates them with {measure.agg.value};"
            " sutura adds the rows it takes up across entities (a sum or a count)"
        )
    return Success({"rule": rule, "entity": list(columns)})
