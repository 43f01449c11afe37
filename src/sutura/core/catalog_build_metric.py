"""A raw metric document to a validated :class:`Metric`: measure, filters, dimensions, anchor."""

from sutura.core.catalog import (
    Aggregate,
    AggregateTerm,
    Anchor,
    CountIfTerm,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    Grain,
    Measure,
    Metric,
    RatioMeasure,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.catalog_build import Checker
from sutura.core.catalog_schema import (
    RawAnchor,
    RawDimension,
    RawFilter,
    RawMeasure,
    RawMetric,
    RawTerm,
)

PERIOD = "period"  # the answer's own period column; no dimension may take its name
_OPEN = "open"


def build_metric(check: Checker, raw: RawMetric, body: str) -> Metric:
    """A :class:`Metric` from its raw document."""
    if raw.audience != _OPEN:
        check.fail("audience", "expected open (restricted audiences are not supported yet)")
    return Metric(
        name=check.name("name", raw.name),
        model=check.name("model", raw.model),
        measure=_measure(check, raw.measure),
        time_column=check.identifier("time_column", raw.time_column),
        grains=tuple(check.choice(f"grains[{i}]", g, Grain) for i, g in enumerate(raw.grains)),
        dimensions=tuple(
            _dimension(check, f"dimensions[{i}]", d) for i, d in enumerate(raw.dimensions)
        ),
        required_filters=tuple(
            _filter(check, f"required_filters[{i}]", f) for i, f in enumerate(raw.required_filters)
        ),
        anchor=None if raw.anchor is None else _anchor(check, raw.anchor),
        audience=_OPEN,
        description=body,
    )


def _measure(check: Checker, raw: RawMeasure) -> Measure:
    form = check.one_of(
        "measure", {"simple": raw.simple is not None, "ratio": raw.ratio is not None}
    )
    if form == "simple" and raw.simple is not None:
        return SimpleMeasure(term=_term(check, "measure.simple", raw.simple))
    assert raw.ratio is not None  # one_of chose ratio
    return RatioMeasure(
        numerator=_term(check, "measure.ratio.numerator", raw.ratio.numerator),
        denominator=_term(check, "measure.ratio.denominator", raw.ratio.denominator),
        zero_denominator=check.choice(
            "measure.ratio.zero_denominator", raw.ratio.zero_denominator, ZeroDenominator
        ),
    )


def _term(check: Checker, key: str, raw: RawTerm) -> Term:
    aggregate_form = raw.aggregate is not None or raw.column is not None
    form = check.one_of(key, {"aggregate": aggregate_form, "count_if": raw.count_if is not None})
    if form == "count_if" and raw.count_if is not None:
        return CountIfTerm(column=check.identifier(f"{key}.count_if", raw.count_if))
    if raw.aggregate is None:
        check.fail(f"{key}.aggregate", "missing required key (a term with column needs aggregate)")
    if raw.column is None:
        check.fail(f"{key}.column", "missing required key (a term with aggregate needs column)")
    return AggregateTerm(
        aggregate=check.choice(f"{key}.aggregate", raw.aggregate, Aggregate),
        column=check.identifier(f"{key}.column", raw.column),
    )


def _filter(check: Checker, key: str, raw: RawFilter) -> RequiredFilter:
    forms = {
        "equals": raw.equals is not None,
        "not_equals": raw.not_equals is not None,
        "is_true": raw.is_true is not None,
        "is_not_null": raw.is_not_null is not None,
    }
    form = check.one_of(key, forms)
    column_key = f"{key}.{form}.column"
    if raw.equals is not None:
        return FilterEquals(
            column=check.identifier(column_key, raw.equals.column), value=raw.equals.value
        )
    if raw.not_equals is not None:
        column = check.identifier(column_key, raw.not_equals.column)
        return FilterNotEquals(column=column, value=raw.not_equals.value)
    if raw.is_true is not None:
        return FilterIsTrue(column=check.identifier(column_key, raw.is_true.column))
    assert raw.is_not_null is not None  # one_of found exactly one form
    return FilterIsNotNull(column=check.identifier(column_key, raw.is_not_null.column))


def _dimension(check: Checker, key: str, raw: RawDimension) -> Dimension:
    name = check.name(f"{key}.name", raw.name)
    if name == PERIOD:
        check.fail(
            f"{key}.name", "a dimension may not be called period (the answer's period column)"
        )
    return Dimension(
        name=name,
        column=check.identifier(f"{key}.column", raw.column),
        via=_via(check, f"{key}.via", raw.via),
        values=_values(check, f"{key}.values", raw.values),
        description=raw.description or "",
    )


def _via(check: Checker, key: str, raw: str | list[str] | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (check.name(key, raw),)
    if not raw:
        check.fail(key, "an empty via; omit it for a column of the metric's own model")
    check.unique(key + "[{}]", raw, "the relationship")
    return tuple(check.name(f"{key}[{i}]", name) for i, name in enumerate(raw))


def _values(check: Checker, key: str, raw: list[str] | None) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if not raw:
        check.fail(key, "list at least one value, or omit values for a group-by-only dimension")
    check.unique(key + "[{}]", raw, "the value")
    return tuple(raw)


def _anchor(check: Checker, raw: RawAnchor) -> Anchor:
    return Anchor(
        start=check.date("anchor.range.start", raw.period.start),
        end=check.date("anchor.range.end", raw.period.end),
        value=raw.value,
    )
