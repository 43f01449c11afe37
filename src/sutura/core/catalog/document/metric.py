"""A written metric document to a validated :class:`Metric`: measure, filters, dimensions."""

from sutura.core.catalog.document.build import Checker, authored_sql
from sutura.core.catalog.document.dimension import PERIOD as PERIOD
from sutura.core.catalog.document.dimension import SharedUses, metric_dimensions
from sutura.core.catalog.document.expression import via_chain
from sutura.core.catalog.document.semi import build_semi_additive
from sutura.core.catalog.document.term import build_filter, build_term
from sutura.core.catalog.document.written import (
    WrittenAnchor,
    WrittenMeasure,
    WrittenMetric,
    WrittenRestricted,
    WrittenTimeColumn,
)
from sutura.core.definitions.audience import OPEN, Audience, Restricted
from sutura.core.definitions.model import (
    Anchor,
    Grain,
    Measure,
    Metric,
    RatioMeasure,
    SimpleMeasure,
    ZeroDenominator,
)

_OPEN = "open"


def build_metric(check: Checker, written: WrittenMetric, body: str) -> tuple[Metric, SharedUses]:
    """A :class:`Metric` from its written document, with its own dimensions only, and the
    shared dimensions it uses (resolved with the whole catalog)."""
    dimensions, uses = metric_dimensions(check, written.dimensions)
    metric = Metric(
        name=check.name("name", written.name),
        model=check.name("model", written.model),
        measure=_measure(check, written.measure),
        time_column=_time_column(check, written.time_column),
        time_via=_time_via(check, written.time_column),
        grains=tuple(check.choice(f"grains[{i}]", g, Grain) for i, g in enumerate(written.grains)),
        dimensions=dimensions,
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
    return metric, uses


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


def _anchor(check: Checker, written: WrittenAnchor) -> Anchor:
    return Anchor(
        start=check.date("anchor.range.start", written.period.start),
        end=check.date("anchor.range.end", written.period.end),
        value=written.value,
    )
