"""A written metric document to a validated :class:`Metric`: measure, filters, dimensions."""

from sutura.core.catalog.document.build import Checker, authored_sql
from sutura.core.catalog.document.expression import build_expression, via_chain
from sutura.core.catalog.document.semi import build_semi_additive
from sutura.core.catalog.document.term import build_filter, build_term
from sutura.core.catalog.document.written import (
    WrittenAnchor,
    WrittenDimension,
    WrittenMeasure,
    WrittenMetric,
    WrittenRestricted,
    WrittenTimeColumn,
)
from sutura.core.definitions.audience import OPEN, Audience, Restricted
from sutura.core.definitions.model import (
    Anchor,
    Dimension,
    Grain,
    Measure,
    Metric,
    RatioMeasure,
    SimpleMeasure,
    ZeroDenominator,
)
from sutura.core.expression.types import Family

PERIOD = "period"  # the answer's own period column; no dimension may take its name
_OPEN = "open"


def build_metric(check: Checker, written: WrittenMetric, body: str) -> Metric:
    """A :class:`Metric` from its written document."""
    return Metric(
        name=check.name("name", written.name),
        model=check.name("model", written.model),
        measure=_measure(check, written.measure),
        time_column=_time_column(check, written.time_column),
        time_via=_time_via(check, written.time_column),
        grains=tuple(check.choice(f"grains[{i}]", g, Grain) for i, g in enumerate(written.grains)),
        dimensions=tuple(
            _dimension(check, f"dimensions[{i}]", d) for i, d in enumerate(written.dimensions)
        ),
        required_filters=tuple(
            build_filter(check, f"required_filters[{i}]", f)
            for i, f in enumerate(written.required_filters)
        ),
        anchor=None if written.anchor is None else _anchor(check, written.anchor),
        audience=audience(check, written.audience),
        authored_sql=authored_sql(check, written.authored_sql),
        description=body,
        semi_additive=build_semi_additive(check, written.semi_additive),
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
        return SimpleMeasure(term=build_term(check, "measure.simple", written.simple))
    assert written.ratio is not None  # one_of chose ratio
    return RatioMeasure(
        numerator=build_term(check, "measure.ratio.numerator", written.ratio.numerator),
        denominator=build_term(check, "measure.ratio.denominator", written.ratio.denominator),
        zero_denominator=check.choice(
            "measure.ratio.zero_denominator", written.ratio.zero_denominator, ZeroDenominator
        ),
    )


def _time_column(check: Checker, written: str | WrittenTimeColumn) -> str:
    if isinstance(written, str):
        return check.identifier("time_column", written)
    return check.identifier("time_column.column", written.column)


def _time_via(check: Checker, written: str | WrittenTimeColumn) -> tuple[str, ...]:
    if isinstance(written, str):
        return ()
    return via_chain(check, "time_column.via", written.via)


def _dimension(check: Checker, key: str, written: WrittenDimension) -> Dimension:
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
