"""Simple and ratio metrics as metric documents: a measure as a term (its filters as required
filters, its ``agg_time_dimension`` as the time column), a ratio on one model as a ratio
measure and across two as a derived ratio (:mod:`sutura.core.dbt.derived`)."""

from collections.abc import Iterable, Mapping, Sequence
from typing import Final, assert_never

from dbt_semantic_interfaces.protocols.metric import Metric, MetricInput
from dbt_semantic_interfaces.protocols.where_filter import WhereFilterIntersection
from dbt_semantic_interfaces.type_enums.aggregation_type import AggregationType
from dbt_semantic_interfaces.type_enums.dimension_type import DimensionType
from dbt_semantic_interfaces.type_enums.metric_type import MetricType
from dbt_semantic_interfaces.type_enums.time_granularity import TimeGranularity
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.draft import scalar
from sutura.core.catalog.error import quoted
from sutura.core.dbt.context import Carried, Context, Model, Term
from sutura.core.dbt.derived import add_derived, write_derived
from sutura.core.dbt.dimensions import (
    column_resolver,
    dimension_tree,
    emit_dimensions,
    non_additive,
)
from sutura.core.dbt.documents import add_document, mark, metric_prose
from sutura.core.dbt.filters import where
from sutura.core.dbt.sql_expr import expression
from sutura.core.dbt.tree import Tree, flow
from sutura.core.definitions.model import DerivedOp
from sutura.core.nouns.grain import GRAIN_ORDER

_GRAINS: Final = [g.value for g in GRAIN_ORDER]
_AGGREGATES: Final = {
    AggregationType.SUM: "sum",
    AggregationType.MIN: "min",
    AggregationType.MAX: "max",
    AggregationType.COUNT_DISTINCT: "count_distinct",
    AggregationType.COUNT: "count",
    AggregationType.AVERAGE: "avg",
    AggregationType.MEDIAN: "median",
}


def _time_column(model: Model, name: str) -> Result[tuple[str, list[str]], str]:
    """The time column a measure is counted by, and the grains it allows."""
    dimension = next((d for d in model.semantic.dimensions if d.name == name), None)
    if dimension is None or dimension.type != DimensionType.TIME:
        return Failure(f"its agg_time_dimension {quoted(name)} is not a time dimension")
    tree = dimension_tree(model, dimension)
    if not is_successful(tree):
        return Failure(f"its agg_time_dimension {quoted(name)}: {tree.failure()}")
    value = tree.unwrap()
    inner = value.get("date_of") if isinstance(value, dict) else None
    column = value if inner is None else inner
    if not (isinstance(column, dict) and set(column) == {"column"}):
        return Failure(
            f"its agg_time_dimension {quoted(name)} computes a value; a metric is counted by a"
            " date or timestamp column (or its date: a day's period is that of its date)"
        )
    params = dimension.type_params
    grain = params.time_granularity if params is not None else TimeGranularity.DAY
    allowed = [g for g in _GRAINS if _grain_rank(g) >= _grain_rank(grain.value)]
    if not allowed:
        return Failure(f"its time granularity {grain.value} is finer than a day")
    found = column["column"]
    assert isinstance(found, str)
    return Success((found, allowed))


def _grain_rank(name: str) -> int:
    ranks = ["day", "week", "month", "quarter", "year"]
    return ranks.index(name) if name in ranks else -1


def _filters(
    context: Context,
    model: Model,
    filters: Iterable[WhereFilterIntersection | None],
    time_column: str | None = None,
) -> Result[list[Tree], str]:
    index = {d.name: d.tree for d in context.dims.get(model.name, [])}

    def resolve(name: str) -> Result[Tree, str]:
        if name in index:
            return Success(index[name])
        if name == "metric_time" and time_column is not None:
            return Success({"date_of": {"column": time_column}})
        if name == model.entity and model.key is not None:
            return Success({"column": model.key})
        return Failure(f"reads {quoted(name)}, which {model.name}'s metrics cannot reach")

    trees: list[Tree] = []
    for intersection in filters:
        for clause in intersection.where_filters if intersection is not None else []:
            tree = where(clause.where_sql_template, resolve)
            if not is_successful(tree):
                return Failure(tree.failure())
            trees.append(tree.unwrap())
    return Success(trees)


def _measure_term(
    context: Context, name: str
) -> Result[tuple[Model, dict[str, Tree], dict[str, Tree] | None], str]:
    if name not in context.measures:
        return Failure(f"its measure {quoted(name)} is on a semantic model not carried over")
    model, measure = context.measures[name]
    semi = non_additive(model, measure)
    if not is_successful(semi):
        return Failure(f"its measure {name}: {semi.failure()}")
    taken = semi.unwrap()
    value = expression(measure.expr or measure.name, column_resolver(model))
    if not is_successful(value):
        return Failure(f"its measure {name}: {value.failure()}")
    of = value.unwrap()
    match measure.agg:
        case AggregationType.SUM_BOOLEAN:
            return Success((model, {"aggregate": "count", "where": {"is_true": of}}, taken))
        case AggregationType.PERCENTILE:
            params = measure.agg_params
            if params is None or params.percentile is None:
                return Failure(f"its measure {name} is a percentile without its percentile")
            if params.use_approximate_percentile:
                return Failure(
                    f"its measure {name} is an approximate percentile; sutura computes exact"
                    " ones, and an approximation's value is the engine's own"
                )
            if params.use_discrete_percentile:
                return Failure(
                    f"its measure {name} is a discrete percentile; sutura's interpolates"
                )
            fraction = format(params.percentile, "f").rstrip("0").rstrip(".")
            return Success(
                (
                    model,
                    {"aggregate": "percentile", "of": of, "fraction": fraction or "0"},
                    taken,
                )
            )
        case (
            AggregationType.SUM
            | AggregationType.MIN
            | AggregationType.MAX
            | AggregationType.COUNT_DISTINCT
            | AggregationType.COUNT
            | AggregationType.AVERAGE
            | AggregationType.MEDIAN
        ):
            return Success((model, {"aggregate": _AGGREGATES[measure.agg], "of": of}, taken))
        case _:
            assert_never(measure.agg)


def _with_where(term: dict[str, Tree], filters: Sequence[Tree]) -> dict[str, Tree]:
    present = term.get("where")
    every = [*([present] if present is not None else []), *filters]
    if not every:
        return term
    return {**term, "where": every[0] if len(every) == 1 else {"and": list(every)}}


def _simple(context: Context, metric: Metric) -> Result[Term, str]:
    params = metric.type_params
    measure_input = params.measure
    if measure_input is None:
        return Failure("a simple metric without a measure")
    if measure_input.join_to_timespine:
        return Failure(
            "join_to_timespine fills every period of the time spine; sutura asks that per"
            " question (--fill over a range)"
        )
    found = _measure_term(context, measure_input.name)
    if not is_successful(found):
        return Failure(found.failure())
    model, term, semi = found.unwrap()
    _, measure = context.measures[measure_input.name]
    agg_time = measure.agg_time_dimension or (
        model.semantic.defaults.agg_time_dimension if model.semantic.defaults else None
    )
    if agg_time is None:
        return Failure(f"its measure {measure.name} has no agg_time_dimension")
    timed = _time_column(model, agg_time)
    if not is_successful(timed):
        return Failure(timed.failure())
    column, grains = timed.unwrap()
    filters = _filters(context, model, [metric.filter, measure_input.filter], column)
    if not is_successful(filters):
        return Failure(filters.failure())
    context.used_measures.add(measure.name)
    return Success(Term(model.name, term, filters.unwrap(), column, grains, semi))


def _input_term(context: Context, given: MetricInput) -> Result[Term, str]:
    if given.offset_window is not None or given.offset_to_grain is not None:
        return Failure(
            f"its input {given.name} is offset in time; sutura asks an earlier period per"
            " question (--compare previous_period or previous_year)"
        )
    term = context.terms.get(given.name)
    if term is None:
        return Failure(f"its input {given.name} is not a simple metric carried over")
    model = context.models[term.model]
    extra = _filters(context, model, [given.filter], term.time_column)
    if not is_successful(extra):
        return Failure(extra.failure())
    return Success(term._replace(filters=[*term.filters, *extra.unwrap()]))


def add_metric(context: Context, metric: Metric) -> None:
    file = context.file_of("metric", metric.name)
    item = f"metric {metric.name}"
    match metric.type:
        case MetricType.SIMPLE:
            simple = _simple(context, metric)
            if not is_successful(simple):
                context.skip(file, item, simple.failure())
                return
            term = simple.unwrap()
            context.terms[metric.name] = term
            measure = {"simple": _with_where(term.term, ())}
            fill = metric.type_params.measure
            if fill is not None and fill.fill_nulls_with is not None:
                context.skip(
                    file,
                    f"{item}: fill_nulls_with {fill.fill_nulls_with}",
                    "not carried over: a group without rows is left out of a sutura answer"
                    " (NULL beside another metric); --fill asks for zero-filled periods",
                )
            _write_metric(context, metric, file, term, measure, term.filters)
        case MetricType.RATIO:
            _ratio(context, metric, file, item)
        case MetricType.DERIVED:
            add_derived(context, metric, file, item)
        case MetricType.CUMULATIVE:
            context.skip(
                file,
                item,
                "a cumulative metric: sutura asks a running or trailing total per question"
                " (--running, --trailing N) of the simple metric",
            )
        case MetricType.CONVERSION:
            context.skip(
                file, item, "a conversion metric (a funnel between two events) has no counterpart"
            )
        case _:
            assert_never(metric.type)


def _ratio(context: Context, metric: Metric, file: str, item: str) -> None:
    params = metric.type_params
    if params.numerator is None or params.denominator is None:
        context.skip(file, item, "a ratio without a numerator or a denominator")
        return
    terms = [_input_term(context, params.numerator), _input_term(context, params.denominator)]
    for term in terms:
        if not is_successful(term):
            context.skip(file, item, term.failure())
            return
    numerator, denominator = (t.unwrap() for t in terms)
    one_model = (numerator.model, numerator.time_column) == (
        denominator.model,
        denominator.time_column,
    )
    # A semi-additive measure is one term of its own metric: its ratio is a derived one.
    if one_model and numerator.semi is None and denominator.semi is None:
        measure: dict[str, Tree] = {
            "ratio": {
                "numerator": _with_where(numerator.term, numerator.filters),
                "denominator": _with_where(denominator.term, denominator.filters),
                "zero_denominator": "yields_null",
            }
        }
        grains = [g for g in numerator.grains if g in denominator.grains]
        _write_metric(context, metric, file, numerator._replace(grains=grains), measure, [])
        return
    if (
        numerator.filters != context.terms[params.numerator.name].filters
        or denominator.filters != context.terms[params.denominator.name].filters
    ):
        context.skip(
            file,
            item,
            "its inputs on two models carry filters of their own; a derived metric"
            " combines two metrics as they are",
        )
        return
    write_derived(
        context, metric, file, item, DerivedOp.RATIO, params.numerator.name, params.denominator.name
    )


def _write_metric(
    context: Context,
    metric: Metric,
    file: str,
    term: Term,
    measure: Mapping[str, Tree],
    filters: Sequence[Tree],
) -> None:
    written, usable, refused = emit_dimensions(context, term.model)
    for name, reason in refused:
        context.skip(
            file,
            f"metric {metric.name}: dimension {name}",
            f"not listed: {reason}; a metric then declares it with the via chain it means",
        )
    ((kind, body),) = measure.items()
    if kind == "simple":
        measure_lines = [f"  simple: {flow(body)}"]
    else:
        assert isinstance(body, dict)
        measure_lines = ["  ratio:"] + [f"    {k}: {flow(v)}" for k, v in body.items()]
    lines = [
        mark(file),
        "kind: metric",
        f"name: {scalar(metric.name)}",
        f"model: {scalar(term.model)}",
        "measure:",
        *measure_lines,
        f"time_column: {scalar(term.time_column)}",
        *([f"semi_additive: {flow(term.semi)}"] if term.semi is not None else []),
        f"grains: [{', '.join(term.grains)}]",
        *(["required_filters:", *(f"  - {flow(f)}" for f in filters)] if filters else []),
        *written,
        "audience: open",
    ]
    add_document(context, f"metrics/{metric.name}.md", lines, metric_prose(metric))
    context.carried[metric.name] = Carried(term.grains, usable, term.model)
