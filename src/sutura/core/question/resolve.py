"""Resolve a question against the pinned catalog: every check that needs no data.

:func:`resolve_question` turns a decoded :class:`~sutura.core.nouns.question.Question` into a
:class:`Resolved` value, or explains why it cannot be answered: a :class:`Refusal` for a
well-formed question the catalog does not allow, a :class:`QuestionError` for one that is
malformed in a way decoding could not see (a metric named twice, an inverted range, ``top.by``
naming something that is not requested).

The time range is widened to whole periods of the question's grain (start floored, end
ceiled) so that every period the answer reports is complete; a question without a grain reads
exactly the days asked, one row per group. ``limits.max_range_days`` bounds what the compiled
query reads: the widened range, with the prior range of ``compare`` or the periods a trailing
window reaches back to.
"""

import datetime
from collections.abc import Callable
from typing import assert_never

from returns.result import Failure, Result, Success

from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    Derived,
    DerivedOp,
    Dimension,
    ExpressionTerm,
    Grain,
    Metric,
    RatioMeasure,
    SimpleMeasure,
)
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.definitions.tree import DerivedLookup, Lookup, leaves, reached
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.question import (
    Compare,
    CompareTo,
    Direction,
    Filter,
    Last,
    Question,
    QuestionError,
    Top,
    Window,
    range_form,
)
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.question.filters import ResolvedFilter, checked_filter
from sutura.core.question.periods import (
    last_periods,
    min_days,
    shift_periods,
    widen_to_periods,
)
from sutura.core.settings import LimitsSettings

Problem = Refusal | QuestionError
"""Why a question cannot be resolved."""

Bounds = tuple[datetime.date, datetime.date]
"""A half-open range of dates: first day included, last excluded."""

PERIOD = "period"
"""The name of the period column, and the ``top.by`` value that orders by it."""


class ResolvedTop(Frozen, frozen=True):
    """Keep the first ``n`` rows ordered by ``by`` (``period`` or a requested metric), of the
    whole answer or, ``per_period``, of each period."""

    n: int
    by: str
    direction: Direction
    per_period: bool = False


class Running(Frozen, frozen=True, tag="running"):
    """A cumulative total from the start of the range."""


class Trailing(Frozen, frozen=True, tag="trailing"):
    """The total of the last ``periods`` periods, ending with each row's own."""

    periods: int


ResolvedWindow = Running | Trailing


class Resolved(Frozen, frozen=True, cache_hash=True):
    """Everything the compiler needs, checked against the catalog; a hashable cache key.

    ``metrics`` are the requested definitions in the requested order; ``start`` and ``end``
    are the half-open range after widening to whole periods of ``grain`` (exactly the range
    asked without a grain: the answer then has no period column).
    """

    metrics: tuple[Metric, ...]
    grain: Grain | None
    start: datetime.date
    end: datetime.date
    dimensions: tuple[str, ...] = ()
    filters: tuple[ResolvedFilter, ...] = ()
    top: ResolvedTop | None = None
    compare: CompareTo | None = None
    window: ResolvedWindow | None = None
    fill: bool = False
    reads: tuple[Bounds, ...] = ()
    """The half-open ranges the statement reads when it is not ``(start, end)`` alone: the
    prior range of ``compare`` and the range, or the range reaching back for ``window``."""
    derived: tuple[Derived, ...] = ()
    """Every derived metric the asked metrics' trees reach (the asked ones among them); with
    any, ``metrics`` are the metrics with a measure the trees reach (their leaves, each once)
    and ``asked`` the names asked, in order."""
    asked: tuple[str, ...] = ()
    range_asked: Bounds | None = None
    """The range the question asked (``range.last`` counted from today), when widening to
    whole periods made the answer's range (``start``, ``end``) another."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The columns that identify a row: the period (with a grain), then the dimensions."""
        return self.dimensions if self.grain is None else (PERIOD, *self.dimensions)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The requested metrics' names, in the requested order (the answer's metric columns)."""
        if self.asked:
            return self.asked
        return tuple(m.name for m in self.metrics)

    def metric_named(self, name: str) -> Metric | None:
        """The metric with a measure called ``name`` that the statement fetches, if any."""
        return next((m for m in self.metrics if m.name == name), None)

    def derived_named(self, name: str) -> Derived | None:
        """The derived metric called ``name`` that the question reaches, if any."""
        return next((d for d in self.derived if d.name == name), None)

    @property
    def read_ranges(self) -> tuple[Bounds, ...]:
        """Every half-open range the statement reads, earliest first."""
        return self.reads or ((self.start, self.end),)

    @property
    def stated_ranges(self) -> tuple[str, ...]:
        """What provenance states when the ranges read are not the range asked: the answer's
        range, then the prior range of ``compare`` or the whole range a trailing window read,
        as ISO 8601 intervals ``start/end`` (end excluded); nothing otherwise."""
        own = interval((self.start, self.end))
        if self.compare is not None and self.grain is not None:
            start = prior_period(self.start, self.grain, self.compare)
            end = prior_period(self.end, self.grain, self.compare)
            if start is not None and end is not None:
                return (own, interval((start, end)))
        reach = self.read_ranges[0][0]
        if self.window is not None and reach != self.start:  # a trailing window reads back
            return (own, interval((reach, self.end)))
        return () if self.range_asked is None else (own,)

    @property
    def stated_asked(self) -> str:
        """The range asked, as an ISO 8601 interval, when widening made the answer's range
        another; "" otherwise."""
        return "" if self.range_asked is None else interval(self.range_asked)

    @property
    def joined(self) -> bool:
        """Whether the statement joins grouped halves on period and dimension values: the
        leaves of derived metrics on several models (or time columns), each half grouped on
        its own."""
        return len(halves(self.metrics)) > 1

    @property
    def derives(self) -> bool:
        """Whether the answer's rows are derived after the statement (compare, window, fill, a
        derived metric, grouped halves joined, or a semi-additive metric: ``top`` then ranks
        the rows after the statement)."""
        rows_derived = self.compare is not None or self.window is not None or self.fill
        return rows_derived or bool(self.derived) or self.joined or self.semi_additive

    @property
    def semi_additive(self) -> bool:
        """Whether a metric fetched does not add up over time (its statement is its own, and
        ``top`` ranks its rows after it)."""
        return any(m.semi_additive is not None for m in self.metrics)


def halves(metrics: tuple[Metric, ...]) -> tuple[tuple[Metric, ...], ...]:
    """``metrics`` in groups of one model and time column, in the order each group is first
    met: each is grouped by one statement of its own, and several are joined. A semi-additive
    metric is a group of its own (its rows are chosen per entity before they are grouped)."""
    found: dict[tuple[str, object, str], list[Metric]] = {}
    for metric in metrics:
        alone = "" if metric.semi_additive is None else metric.name  # a statement of its own
        found.setdefault((metric.model, metric.time, alone), []).append(metric)
    return tuple(tuple(group) for group in found.values())


def resolve_question(
    question: Question,
    pinned: PinnedDefinitions,
    limits: LimitsSettings,
    today: datetime.date,
) -> Result[Resolved, Problem]:
    """Check ``question`` against the pinned catalog and the limits.

    Args:
        question: The decoded question.
        pinned: The pinned definitions it is asked of.
        limits: The operator's bounds (dimensions, range length, rows).
        today: The current date, for ``range.last``.

    Returns:
        The resolved question, or the refusal or question error that stops it.
    """
    grain = question.grain
    catalog = pinned.catalog
    if not any(catalog.derived_metric(name) for name in question.metrics):
        return _plain(question, pinned, limits, today)
    if len(set(question.metrics)) != len(question.metrics):
        return Failure(QuestionError(field="$.metrics", problem="a metric is named more than once"))
    if not all(catalog.metric(n) or catalog.derived_metric(n) for n in question.metrics):
        return Failure(refusal(RefusalCode.METRIC_UNKNOWN))
    derived = reached(catalog.derived_metric, question.metrics)
    metrics = leaves(catalog.metric, catalog.derived_metric, question.metrics)
    plain = tuple(m for m in map(catalog.metric, question.metrics) if m is not None)
    asked = [d for d in map(catalog.derived_metric, question.metrics) if d is not None]
    filters = _filters(tuple(halves(metrics)), question.filters)
    problem = (
        (_combinable(plain) if plain else None)
        or next((p for d in asked if (p := _derived_allows(d, question))), None)
        or _grain_listed(plain, grain)
        or _periodless_valid(question)
        or _asked_by_halves(metrics, question, limits)
        or (filters if not isinstance(filters, tuple) else None)
        or _top_valid(question.top, question.metrics, limits.max_rows)
        or _window_valid(question.window, question.compare, metrics, derived, question.metrics)
    )
    if problem is not None:
        return Failure(problem)
    if not isinstance(filters, tuple):
        return Failure(filters)
    return _range(question, grain, limits.max_range_days, today).bind(
        lambda asked: _derived(question, grain, metrics, asked, limits, derived, filters)
    )


def _plain(
    question: Question, pinned: PinnedDefinitions, limits: LimitsSettings, today: datetime.date
) -> Result[Resolved, Problem]:
    """A question asking metrics with a measure only: they share one model and time column."""
    metrics = _metrics(question.metrics, pinned)
    if not isinstance(metrics, tuple):
        return Failure(metrics)
    filters = _filters((metrics,), question.filters)
    problem = (
        _combinable(metrics)
        or _grain_listed(metrics, question.grain)
        or _periodless_valid(question)
        or _dimensions_allowed(metrics, question.dimensions, limits.max_dimensions)
        or (filters if not isinstance(filters, tuple) else None)
        or _top_valid(question.top, question.metrics, limits.max_rows)
        or _window_valid(question.window, question.compare, metrics)
    )
    if problem is not None:
        return Failure(problem)
    if not isinstance(filters, tuple):
        return Failure(filters)
    return _range(question, question.grain, limits.max_range_days, today).bind(
        lambda asked: _derived(question, question.grain, metrics, asked, limits, (), filters)
    )


def _asked_by_halves(
    metrics: tuple[Metric, ...], question: Question, limits: LimitsSettings
) -> Refusal | None:
    """The dimensions asked, as each half of the leaves defines them: the leaves on one model
    and time column are grouped together, so they must agree on each."""
    for half in halves(metrics):
        problem = _dimensions_allowed(half, question.dimensions, limits.max_dimensions)
        if problem is not None:
            return problem
    return None


def _derived_allows(derived: Derived, question: Question) -> Refusal | None:
    """A derived metric is asked only at the grains (or without a grain) and dimensions it
    lists."""
    if question.grain is not None and question.grain not in derived.grains:
        return refusal(RefusalCode.GRAIN_NOT_SUPPORTED)
    asked = [*question.dimensions, *(f.dimension for f in question.filters)]
    if any(name not in derived.dimensions for name in asked):
        return refusal(RefusalCode.DIMENSION_NOT_PERMITTED)
    return None


def _derived(
    question: Question,
    grain: Grain | None,
    metrics: tuple[Metric, ...],
    asked: tuple[Bounds, Bounds],
    limits: LimitsSettings,
    derived: tuple[Derived, ...],
    filters: tuple[ResolvedFilter, ...],
) -> Result[Resolved, Problem]:
    """The resolved question, with the ranges ``compare`` and ``window`` read besides;
    ``asked`` is the range asked and the range answered (widened to whole periods)."""
    requested, bounds = asked
    top = question.top
    max_range_days = limits.max_range_days
    window = _resolved_window(question.window)
    compare = None if question.compare is None else question.compare.to
    reads = _reads(bounds, grain, compare, window)
    field = "$.compare" if compare is not None else "$.window.trailing"
    if reads is None:
        return Failure(QuestionError(field=field, problem="reaches beyond the supported calendar"))
    if reads and (bounds[0] - reads[0][0]).days > max_range_days:
        return Failure(
            QuestionError(field=field, problem="reaches back further than the range limit allows")
        )
    if days_read(reads or (bounds,)) > max_range_days:
        return Failure(refusal(RefusalCode.TIME_RANGE_TOO_LONG))
    if question.fill and grain is not None and _period_count(bounds, grain) > limits.max_rows:
        return Failure(
            QuestionError(
                field="$.fill",
                problem="the range has more periods of this grain than the row limit",
            )
        )
    return Success(
        Resolved(
            metrics=metrics,
            grain=grain,
            start=bounds[0],
            end=bounds[1],
            dimensions=tuple(question.dimensions),
            filters=filters,
            top=None
            if top is None
            else ResolvedTop(
                n=top.n, by=top.by, direction=top.direction, per_period=top.per is not None
            ),
            compare=compare,
            window=window,
            fill=question.fill,
            reads=reads,
            derived=derived,
            asked=tuple(question.metrics) if derived else (),
            range_asked=None if requested == bounds else requested,
        )
    )


def _resolved_window(window: Window | None) -> ResolvedWindow | None:
    if window is None:
        return None
    if window.trailing is not None:
        return Trailing(periods=window.trailing)
    return Running()


def prior_period(day: datetime.date, grain: Grain, to: CompareTo) -> datetime.date | None:
    """The start of the period a row of period ``day`` is compared with.

    A previous year is twelve months earlier (a 29 February is compared with the 28th),
    or 52 weeks at grain ``week`` so that weeks stay whole.

    >>> prior_period(datetime.date(2024, 2, 29), Grain.DAY, CompareTo.PREVIOUS_YEAR)
    datetime.date(2023, 2, 28)
    >>> prior_period(datetime.date(2024, 1, 1), Grain.QUARTER, CompareTo.PREVIOUS_PERIOD)
    datetime.date(2023, 10, 1)
    """
    match to:
        case CompareTo.PREVIOUS_PERIOD:
            return shift_periods(day, grain, -1)
        case CompareTo.PREVIOUS_YEAR:
            return _year_earlier(day, grain)
        case _:
            assert_never(to)


def _year_earlier(day: datetime.date, grain: Grain) -> datetime.date | None:
    """Twelve months earlier, or 52 weeks at grain ``week``."""
    match grain:
        case Grain.WEEK:
            return shift_periods(day, Grain.WEEK, -52)
        case Grain.DAY | Grain.MONTH | Grain.QUARTER | Grain.YEAR:
            return shift_periods(day, Grain.MONTH, -12)
        case _:
            assert_never(grain)


def _reads(
    bounds: Bounds, grain: Grain | None, compare: CompareTo | None, window: ResolvedWindow | None
) -> tuple[Bounds, ...] | None:
    """The ranges read: the range, after the prior range or reaching back for a trailing
    window; None where a bound leaves the calendar. Without a grain, the range alone (a
    window or comparison needs one)."""
    start, end = bounds
    if grain is None:
        return ()
    match window:
        case Trailing(periods=periods):
            reach = shift_periods(start, grain, 1 - periods)
            return None if reach is None else ((reach, end),)
        case Running() | None:
            pass
        case _:
            assert_never(window)
    if compare is None:
        return ()
    prior_start = prior_period(start, grain, compare)
    prior_end = prior_period(end, grain, compare)
    if prior_start is None or prior_end is None:
        return None
    if prior_end >= start:
        return ((prior_start, end),)
    return ((prior_start, prior_end), bounds)


def interval(bounds: Bounds) -> str:
    """A half-open range as an ISO 8601 interval ``start/end`` (end excluded).

    >>> interval((datetime.date(1998, 1, 1), datetime.date(1998, 9, 3)))
    '1998-01-01/1998-09-03'
    """
    return f"{bounds[0].isoformat()}/{bounds[1].isoformat()}"


def _periodless_valid(question: Question) -> QuestionError | None:
    """Without a grain there is one period, the range: nothing to compare it with, add up
    over, fill, or rank by or within."""
    if question.grain is not None:
        return None
    needs = "needs a grain (without one, each group has one row over exactly the range)"
    top = question.top
    found = (
        ("$.compare", question.compare is not None),
        ("$.window", question.window is not None),
        ("$.fill", question.fill),
        ("$.top.by", top is not None and top.by == PERIOD),
        ("$.top.per", top is not None and top.per is not None),
    )
    field = next((name for name, present in found if present), None)
    return None if field is None else QuestionError(field=field, problem=needs)


def days_read(reads: tuple[Bounds, ...]) -> int:
    """How many days the statement reads: every range read, each day once (the ranges read
    never overlap), which is what ``limits.max_range_days`` bounds.

    >>> days_read(((datetime.date(2023, 1, 1), datetime.date(2025, 1, 1)),))
    731
    """
    return sum((end - start).days for start, end in reads)


def _period_count(bounds: Bounds, grain: Grain) -> int:
    """How many periods of ``grain`` the whole-period range ``bounds`` holds."""
    count, day = 0, bounds[0]
    while day < bounds[1]:
        count += 1
        following = shift_periods(day, grain, 1)
        if following is None:
            break
        day = following
    return count


def _metrics(names: list[str], pinned: PinnedDefinitions) -> tuple[Metric, ...] | Problem:
    """The requested metrics, refusing a repeated or unknown name."""
    if len(set(names)) != len(names):
        return QuestionError(field="$.metrics", problem="a metric is named more than once")
    found = [pinned.catalog.metric(name) for name in names]
    known = tuple(m for m in found if m is not None)
    return known if len(known) == len(found) else refusal(RefusalCode.METRIC_UNKNOWN)


def _combinable(metrics: tuple[Metric, ...]) -> Refusal | None:
    """Refuse metrics that do not share one model and one time column."""
    first = metrics[0]
    if all(m.model == first.model and m.time == first.time for m in metrics):
        return None
    return refusal(RefusalCode.METRICS_NOT_COMBINABLE)


def _grain_listed(metrics: tuple[Metric, ...], grain: Grain | None) -> Refusal | None:
    """Refuse a grain that any requested metric does not list (no grain: every metric
    answers over exactly its range)."""
    if grain is None or all(grain in m.grains for m in metrics):
        return None
    return refusal(RefusalCode.GRAIN_NOT_SUPPORTED)


def _dimensions_allowed(
    metrics: tuple[Metric, ...], names: list[str], max_dimensions: int
) -> Refusal | None:
    """Refuse too many, repeated, unlisted or differently defined dimensions."""
    if len(names) > max_dimensions:
        return refusal(RefusalCode.TOO_MANY_DIMENSIONS)
    if len(set(names)) != len(names):
        return refusal(RefusalCode.DUPLICATE_DIMENSION)
    for name in names:
        found = dimension_everywhere(metrics, name)
        if isinstance(found, Refusal):
            return found
    return None


def dimension_everywhere(metrics: tuple[Metric, ...], name: str) -> tuple[Dimension, ...] | Refusal:
    """The dimension ``name`` as each metric defines it, refused unless all agree on it.

    Every metric must list it (else ``dimension_not_permitted``) reading the same column
    along the same ``via`` path, or the same expression (else ``metrics_not_combinable``).
    """
    found = [m.dimension(name) for m in metrics]
    listed = tuple(d for d in found if d is not None)
    if len(listed) != len(found):
        return refusal(RefusalCode.DIMENSION_NOT_PERMITTED)
    first = listed[0]
    if any(d.value != first.value for d in listed):
        return refusal(RefusalCode.METRICS_NOT_COMBINABLE)
    return listed


def _filters(
    each: tuple[tuple[Metric, ...], ...], filters: list[Filter]
) -> tuple[ResolvedFilter, ...] | Problem:
    """The caller's filters, each on a dimension every metric (of each group checked alone)
    defines alike, typed by it; or the first that is refused or malformed."""
    resolved: list[tuple[ResolvedFilter, ...]] = []
    for metrics in each:
        checked: list[ResolvedFilter] = []
        for index, item in enumerate(filters):
            found = dimension_everywhere(metrics, item.dimension)
            if isinstance(found, Refusal):
                return found
            one = checked_filter(index, item, found)
            if not isinstance(one, ResolvedFilter):
                return one
            checked.append(one)
        resolved.append(tuple(checked))
    return resolved[0]


def _top_valid(top: Top | None, metrics: list[str], max_rows: int) -> QuestionError | None:
    """Refuse ``top`` ordering by something not requested, or keeping more rows than allowed."""
    if top is None:
        return None
    if top.by != PERIOD and top.by not in metrics:
        return QuestionError(field="$.top.by", problem="must be period or a requested metric")
    if top.n > max_rows:
        return QuestionError(field="$.top.n", problem="must not exceed the row limit")
    if top.per is not None and top.by == PERIOD:
        return QuestionError(field="$.top.by", problem="must be a requested metric with per")
    return None


_ADDITIVE = (Aggregate.SUM, Aggregate.COUNT)


def additive(metric: Metric) -> bool:
    """Whether ``metric`` adds up over periods exactly: a sum, a count or a count_if that is
    not semi-additive (a balance of each month does not add up to anything)."""
    if metric.semi_additive is not None:
        return False
    match metric.measure:
        case SimpleMeasure(term=CountIfTerm()):
            return True
        case SimpleMeasure(term=AggregateTerm(aggregate=aggregate)):
            return aggregate in _ADDITIVE
        case SimpleMeasure(term=ExpressionTerm(aggregate=aggregate)):
            return aggregate in _ADDITIVE
        case SimpleMeasure() | RatioMeasure():
            return False
        case _:
            assert_never(metric.measure)


def _window_valid(
    window: Window | None,
    compare: Compare | None,
    metrics: tuple[Metric, ...],
    derived: tuple[Derived, ...] = (),
    asked: list[str] | None = None,
) -> Problem | None:
    """Refuse a window that is not exactly one form, with compare, or over a metric that does
    not add up over periods (``window_not_additive``: it is never approximated by adding up
    parts)."""
    if window is None:
        return None
    if window.running == (window.trailing is not None):
        return QuestionError(
            field="$.window", problem="give either running: true or trailing: N, not both"
        )
    if window.trailing is not None and window.trailing < 1:
        return QuestionError(field="$.window.trailing", problem="must be at least 1")
    if compare is not None:
        return QuestionError(field="$.compare", problem="cannot be combined with window")
    names = [m.name for m in metrics] if asked is None else asked
    metric, combined = lookups(metrics, derived)
    if not all(adds_up(metric, combined, name, additive) for name in names):
        return refusal(RefusalCode.WINDOW_NOT_ADDITIVE)
    return None


def lookups(
    metrics: tuple[Metric, ...], derived: tuple[Derived, ...]
) -> tuple[Lookup, DerivedLookup]:
    """The metric with a measure and the derived metric of a name, among these."""
    by_name = {m.name: m for m in metrics}
    derived_by_name = {d.name: d for d in derived}
    return by_name.get, derived_by_name.get


def adds_up(
    metric: Lookup, derived: DerivedLookup, name: str, leaf: Callable[[Metric], bool]
) -> bool:
    """Whether the metric ``name`` adds up over periods: a metric with a measure when ``leaf``
    holds for it, a derived metric when it is a sum or difference (scaled or not) of metrics
    that add up. Windows need it (``leaf`` is :func:`additive`), and a filled period holds zero
    for it (sums and counts)."""
    found = derived(name)
    if found is None:
        plain = metric(name)
        return plain is not None and leaf(plain)
    match found.op:
        case DerivedOp.SUM | DerivedOp.DIFFERENCE:
            return all(adds_up(metric, derived, r, leaf) for r in found.of)
        case DerivedOp.RATIO | DerivedOp.PRODUCT:
            return False
        case _:
            assert_never(found.op)


def _range(
    question: Question, grain: Grain | None, max_range_days: int, today: datetime.date
) -> Result[tuple[Bounds, Bounds], Problem]:
    """The half-open range asked, and widened to whole periods of the grain (the same
    without a grain), bounded in length."""
    form: Result[Bounds | Last, Problem] = range_form(question.range)
    return form.bind(lambda requested: _widened(requested, grain, max_range_days, today))


def _widened(
    requested: Bounds | Last, grain: Grain | None, max_range_days: int, today: datetime.date
) -> Result[tuple[Bounds, Bounds], Problem]:
    """The requested range and the range widened to whole periods of ``grain`` (the same
    without a grain), refused when too long."""
    match requested:
        case Last():
            if min_days(requested.unit, requested.count) > max_range_days:
                return Failure(refusal(RefusalCode.TIME_RANGE_TOO_LONG))
            bounds = _last(requested, today)
        case (datetime.date(), datetime.date()):
            bounds = requested
        case _:
            assert_never(requested)
    if bounds is None:
        return Failure(
            QuestionError(field="$.range", problem="reaches beyond the supported calendar")
        )
    widened = bounds if grain is None else widen_to_periods(*bounds, grain)
    if widened is None:
        return Failure(
            QuestionError(field="$.range", problem="reaches beyond the supported calendar")
        )
    if (widened[1] - widened[0]).days > max_range_days:
        return Failure(refusal(RefusalCode.TIME_RANGE_TOO_LONG))
    return Success((bounds, widened))


def _last(last: Last, today: datetime.date) -> Bounds | None:
    """The range a ``last`` form names, relative to ``today``."""
    return last_periods(today, last.unit, last.count, include_current=last.include_current)
