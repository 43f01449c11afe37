"""A written metric document to a validated :class:`Metric`: measure, filters, dimensions."""

from sutura.core.catalog.document.build import Checker, authored_sql
from sutura.core.catalog.document.written import (
    WrittenAnchor,
    WrittenDimension,
    WrittenFilter,
    WrittenMeasure,
    WrittenMetric,
    WrittenRestricted,
    WrittenTerm,
)
from sutura.core.definitions.audience import OPEN, Audience, Restricted
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    Anchor,
    CountIfTerm,
    Dimension,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    Measure,
    Metric,
    RatioMeasure,
    RequiredFilter,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.nouns.grain import Grain

PERIOD = "period"  # the answer's own period column; no dimension may take its name
_OPEN = "open"


def build_metric(check: Checker, written: WrittenMetric, body: str) -> Metric:
    """A :class:`Metric` from its written document."""
    return Metric(
        name=check.name("name", written.name),
        model=check.name("model", written.model),
        measure=_measure(check, written.measure),
        time_column=check.identifier("time_column", written.time_column),
        grains=tuple(check.choice(f"grains[{i}]", g, Grain) for i, g in enumerate(written.grains)),
        dimensions=tuple(
            _dimension(check, f"dimensions[{i}]", d) for i, d in enumerate(written.dimensions)
        ),
        required_filters=tuple(
            _filter(check, f"required_filters[{i}]", f)
            for i, f in enumerate(written.required_filters)
        ),
        anchor=None if written.anchor is None else _anchor(check, written.anchor),
        audience=audience(check, written.audience),
        authored_sql=authored_sql(check, written.authored_sql),
        description=body,
    )


def audience(check: Checker, written: str | WrittenRestricted) -> Audience:
    """The ``audience`` key: ``open`` or ``{restricted: [ids]}``."""
    if isinstance(written, str):
        if written != _OPEN:
            check.fail("audience", "expected open, or {restricted: [audience ids]}")
        return OPEN
    if not written.restricted:
        check.fail("audience.restricted", "list at least one audience id, or write open")
    ids = [
        check.identifier(f"audience.restricted[{i}]", audience)
        for i, audience in enumerate(written.restricted)
    ]
    check.unique("audience.restricted[{}]", ids, "the audience")
    return Restricted(ids=tuple(sorted(ids)))


def _measure(check: Checker, written: WrittenMeasure) -> Measure:
    form = check.one_of(
        "measure", {"simple": written.simple is not None, "ratio": written.ratio is not None}
    )
    if form == "simple" and written.simple is not None:
        return SimpleMeasure(term=_term(check, "measure.simple", written.simple))
    assert written.ratio is not None  # one_of chose ratio
    return RatioMeasure(
        numerator=_term(check, "measure.ratio.numerator", written.ratio.numerator),
        denominator=_term(check, "measure.ratio.denominator", written.ratio.denominator),
        zero_denominator=check.choice(
            "measure.ratio.zero_denominator", written.ratio.zero_denominator, ZeroDenominator
        ),
    )


def _term(check: Checker, key: str, written: WrittenTerm) -> Term:
    aggregate_form = written.aggregate is not None or written.column is not None
    form = check.one_of(
        key, {"aggregate": aggregate_form, "count_if": written.count_if is not None}
    )
    if form == "count_if" and written.count_if is not None:
        return CountIfTerm(column=check.identifier(f"{key}.count_if", written.count_if))
    if written.aggregate is None:
        check.fail(f"{key}.aggregate", "missing required key (a term with column needs aggregate)")
    if written.column is None:
        check.fail(f"{key}.column", "missing required key (a term with aggregate needs column)")
    return AggregateTerm(
        aggregate=check.choice(f"{key}.aggregate", written.aggregate, Aggregate),
        column=check.identifier(f"{key}.column", written.column),
    )


def _filter(check: Checker, key: str, written: WrittenFilter) -> RequiredFilter:
    forms = {
        "equals": written.equals is not None,
        "not_equals": written.not_equals is not None,
        "is_true": written.is_true is not None,
        "is_not_null": written.is_not_null is not None,
    }
    form = check.one_of(key, forms)
    column_key = f"{key}.{form}.column"
    if written.equals is not None:
        return FilterEquals(
            column=check.identifier(column_key, written.equals.column), value=written.equals.value
        )
    if written.not_equals is not None:
        column = check.identifier(column_key, written.not_equals.column)
        return FilterNotEquals(column=column, value=written.not_equals.value)
    if written.is_true is not None:
        return FilterIsTrue(column=check.identifier(column_key, written.is_true.column))
    assert written.is_not_null is not None  # one_of found exactly one form
    return FilterIsNotNull(column=check.identifier(column_key, written.is_not_null.column))


def _dimension(check: Checker, key: str, written: WrittenDimension) -> Dimension:
    name = check.name(f"{key}.name", written.name)
    if name == PERIOD:
        check.fail(
            f"{key}.name", "a dimension may not be called period (the answer's period column)"
        )
    return Dimension(
        name=name,
        column=check.identifier(f"{key}.column", written.column),
        via=_via(check, f"{key}.via", written.via),
        values=_values(check, f"{key}.values", written.values),
        description=written.description or "",
    )


def _via(check: Checker, key: str, written: str | list[str] | None) -> tuple[str, ...]:
    if written is None:
        return ()
    if isinstance(written, str):
        return (check.name(key, written),)
    if not written:
        check.fail(key, "an empty via; omit it for a column of the metric's own model")
    check.unique(key + "[{}]", written, "the relationship")
    return tuple(check.name(f"{key}[{i}]", name) for i, name in enumerate(written))


def _values(check: Checker, key: str, written: list[str] | None) -> tuple[str, ...] | None:
    if written is None:
        return None
    if not written:
        check.fail(key, "list at least one value, or omit values for a group-by-only dimension")
    check.unique(key + "[{}]", written, "the value")
    return tuple(written)


def _anchor(check: Checker, written: WrittenAnchor) -> Anchor:
    return Anchor(
        start=check.date("anchor.range.start", written.period.start),
        end=check.date("anchor.range.end", written.period.end),
        value=written.value,
    )
