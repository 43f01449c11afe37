"""Rows derived from a statement's rows: complete series, comparisons, windows, then ``top``.

The statement of a question with ``compare``, ``window`` or ``fill`` groups by period and
dimensions over every range it needs (the prior range, or the periods a trailing window reaches
back to) and orders nothing away. Everything after is exact arithmetic here, identical on every
engine:

- ``fill``: every period of the ranges read gets a row for every group of dimension values the
  statement returned (or the one group without dimensions); a sum or count is zero (written at
  the scale of the metric's other values), any other metric NULL.
- ``window``: a running total from the range start, or the total of the last N periods ending
  with the row's own; a period without a row adds nothing; NULL where no period in the window
  has a value. Only sums and counts are windowed (others are refused when resolving).
- ``compare``: the prior value is the row of the same dimension values in the prior period
  (NULL when there is none, or where it is a ratio at a zero denominator, whatever the ratio's
  rule: the prior period's row is not returned, so it cannot refuse); the change is value minus
  prior (NULL if either is NULL); the relative change is change over prior, NULL where the
  prior is NULL or zero.
- ``top``: ordered by the metric's value (NULLs last), ties by period then dimensions, the first
  ``n`` of the answer or, with ``per``, of each period.

Rows are ordered as a statement orders them on every engine: by period, then each dimension,
ascending, NULLs last, each by its type's value (text by code point, a number by its value:
``-5`` before ``-1`` before ``10``, never by its text), whichever engine gave the rows.

Rows outside the question's range are read only to compute these and never returned. A value
that refuses where shown (a ratio at a zero denominator under ``fails``) refuses the answer
only where a row the answer returns holds it: never from the prior range, the periods a window
reads back, or a row ``top`` leaves out (where it ranks as NULL). Averages, ratios and
relative changes are written with six decimal places, rounded half-to-even; sums, counts and
their changes keep their exact decimal text.

>>> from decimal import Decimal
>>> _text(_minus(Decimal("12.50"), Decimal("10.00"))), _text(_relative(Decimal(3), Decimal(0)))
('2.50', None)
"""

import bisect
import datetime
import decimal
from collections.abc import Callable
from fractions import Fraction
from typing import Final, assert_never

from returns.result import Failure, Result, Success

from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.question.periods import shift_periods
from sutura.core.question.resolve import Resolved, Running, Trailing, prior_period
from sutura.core.sql.combine import Refuses, evaluated
from sutura.core.sql.compiled import (
    CompiledQuery,
    Derivation,
    Output,
    Passthrough,
    Presence,
    Quotient,
)
from sutura.core.sql.ordering import descending

Row = list[str | None]
Value = decimal.Decimal | Fraction | str | Refuses | None
"""A metric's exact value: a decimal (sums, counts), a fraction (averages, ratios), text that is
not a number (a first or last day), a value that refuses the answer where shown, or NULL."""

Key = tuple[str | None, ...]
"""The dimension values of a group."""

TextKeys = tuple[bool, ...]
"""Per key column (period, then dimensions), whether its values are text."""

_EXACT = decimal.Context(prec=4000, traps=[decimal.Inexact, decimal.InvalidOperation])


def derive_rows(
    compiled: CompiledQuery,
    derivation: Derivation,
    fetched: list[Row],
    quotient: Callable[[Row, Quotient], Fraction | Refuses | None],
    max_rows: int,
) -> Result[list[Row], Refusal]:
    """The answer's rows of a question with compare, window or fill.

    Args:
        compiled: The compiled statement (its outputs say where each metric's parts are).
        derivation: What to derive.
        fetched: The statement's rows as canonical text.
        quotient: The exact quotient of an average or ratio in a row (or what its rule makes
            of a zero denominator).
        max_rows: The row limit; a filled answer longer than it is refused, never cut.

    Returns:
        The rows, or ``result_too_large``, or the refusal a value the rows hold carries.
    """
    resolved = derivation.resolved
    width = len(resolved.keys)
    timed = resolved.grain is not None
    counted = tuple(Passthrough(index=p.index) for p in derivation.presence)
    groups = _groups(fetched, timed, width, (*compiled.outputs[width:], *counted), quotient)
    zero_filled = derivation.zero_filled
    if resolved.derived:
        _combined(groups, resolved, derivation.presence)
    if resolved.fill:
        _fill(groups, resolved, zero_filled)
    orders = derivation.text_keys or (False,) * width
    rows = _answer_rows(groups, resolved, orders)
    if resolved.top is not None:
        rows = _top(rows, resolved, orders)
    if len(rows) > max_rows:
        return Failure(refusal(RefusalCode.RESULT_TOO_LARGE))
    refused = next((v for row in rows for v in row if isinstance(v, Refuses)), None)
    if refused is not None:
        return Failure(refusal(refused.code))
    return Success([[_text(value) for value in row] for row in rows])


Groups = dict[Key, dict[str, list[Value]]]
"""Per group of dimension values, per period (ISO text; the range's first day without a
grain), each metric's value."""


def _combined(groups: Groups, resolved: Resolved, presence: tuple[Presence, ...]) -> None:
    """Each period's leaf values replaced, in place, by the asked metrics' values (a leaf
    asked as it is, a derived metric computed from its tree). Where an asked derived metric's
    leaves on a model counted no row of the group (``presence``: another metric of that model
    brought it in), it reads them as it does alone: NULL, as a model without a row of it."""
    names = [m.name for m in resolved.metrics]
    asked = resolved.metric_names
    derived = {d.name: d for d in resolved.derived}.get
    for periods in groups.values():
        for period, values in periods.items():
            leaves = dict(zip(names, values[: len(names)], strict=True))
            absent: dict[str, set[str]] = {}
            for found, count in zip(presence, values[len(names) :], strict=True):
                if count is None or count == 0:
                    absent.setdefault(found.metric, set()).update(found.leaves)
            known: dict[str, Value] = {}
            periods[period] = [
                evaluated(name, leaves, derived, known)
                if name not in absent
                else evaluated(name, {**leaves, **dict.fromkeys(absent[name])}, derived, {})
                for name in asked
            ]


def _groups(
    fetched: list[Row],
    timed: bool,
    width: int,
    outputs: tuple[Output, ...],
    quotient: Callable[[Row, Quotient], Fraction | Refuses | None],
) -> Groups:
    """The fetched rows by group and period; without a grain (``timed`` false) each row is
    its group's one period, keyed ""."""
    groups: Groups = {}
    for row in fetched:
        period = row[0] if timed else ""
        if period is None:
            continue
        values = [_value(row, output, quotient) for output in outputs]
        groups.setdefault(tuple(row[1 if timed else 0 : width]), {})[period] = values
    return groups


def _value(
    row: Row, output: Output, quotient: Callable[[Row, Quotient], Fraction | Refuses | None]
) -> Value:
    match output:
        case Passthrough(index=index):
            return _number(row[index])
        case Quotient():
            return quotient(row, output)
        case _:
            assert_never(output)


def _number(text: str | None) -> decimal.Decimal | str | None:
    """The exact decimal a cell denotes, or its text when it is not a finite number."""
    if text is None:
        return None
    try:
        number = decimal.Decimal(text)
    except decimal.InvalidOperation:
        return text
    return number if number.is_finite() else text


def _periods(resolved: Resolved) -> list[str]:
    """Every period start of every range read, in order, as ISO text (fill has a grain)."""
    found: list[str] = []
    grain = resolved.grain
    if grain is None:
        return found
    for start, end in resolved.read_ranges:
        day: datetime.date | None = start
        while day is not None and day < end:
            found.append(day.isoformat())
            day = shift_periods(day, grain, 1)
    return found


def _fill(groups: Groups, resolved: Resolved, zero_filled: tuple[bool, ...]) -> None:
    if not resolved.dimensions and not groups:
        groups[()] = {}
    zeros = [_zero(groups, i) if z else None for i, z in enumerate(zero_filled)]
    for periods in groups.values():
        for period in _periods(resolved):
            periods.setdefault(period, list(zeros))


def _zero(groups: Groups, index: int) -> decimal.Decimal:
    """Zero at the scale of the metric's other values (``0.00`` beside ``12.50``)."""
    for periods in groups.values():
        for values in periods.values():
            value = values[index]
            if isinstance(value, decimal.Decimal):
                return _EXACT.subtract(value, value)
    return decimal.Decimal(0)


def _answer_rows(groups: Groups, resolved: Resolved, orders: TextKeys) -> list[list[Value]]:
    start, end = resolved.start.isoformat(), resolved.end.isoformat()
    grain = resolved.grain
    rows: list[list[Value]] = []
    for key, periods in groups.items():
        ordered = sorted(periods)
        sums = _Running(periods, ordered) if resolved.window is not None else None
        for period in ordered:
            if grain is not None and not start <= period < end:
                continue
            values = periods[period]
            row: list[Value] = [*key] if grain is None else [period, *key]
            for index, value in enumerate(values):
                row.append(value)
                if resolved.compare is not None and grain is not None:
                    prior_day = prior_period(
                        datetime.date.fromisoformat(period), grain, resolved.compare
                    )
                    found = None if prior_day is None else periods.get(prior_day.isoformat())
                    prior = None if found is None else _shown_as_prior(found[index])
                    change = _minus(value, prior)
                    row.extend((prior, change, _relative(change, prior)))
                if sums is not None:
                    row.append(sums.total(index, _window_start(period, resolved), period))
            rows.append(row)
    rows.sort(key=lambda row: _group_order(row, orders))
    return rows


def _shown_as_prior(value: Value) -> Value:
    """A prior value as its row's comparison shows it: a value that refuses where shown is
    NULL there (the prior period's row is not returned, so it cannot refuse)."""
    return None if isinstance(value, Refuses) else value


def _window_start(period: str, r: Resolved) -> str:
    """The first period (ISO text) of the window that ends with ``period``."""
    match r.window:
        case Running() | None:
            return r.start.isoformat()
        case Trailing(periods=count):
            if r.grain is None:  # refused when resolving: a window needs a grain
                return r.start.isoformat()
            day = shift_periods(datetime.date.fromisoformat(period), r.grain, 1 - count)
            return "" if day is None else day.isoformat()
        case _:
            assert_never(r.window)


class _Running:
    """Prefix totals of each metric over one group's periods, so a window costs two lookups."""

    def __init__(self, periods: dict[str, list[Value]], ordered: list[str]) -> None:
        self._ordered = ordered
        self._totals: dict[int, list[decimal.Decimal]] = {}
        self._counts: dict[int, list[int]] = {}
        self._periods = periods

    def _prefix(self, index: int) -> tuple[list[decimal.Decimal], list[int]]:
        if index not in self._totals:
            totals, counts = [decimal.Decimal(0)], [0]
            for name in self._ordered:
                value = self._periods[name][index]
                if isinstance(value, decimal.Decimal):
                    totals.append(_EXACT.add(totals[-1], value))
                    counts.append(counts[-1] + 1)
                else:
                    totals.append(totals[-1])
                    counts.append(counts[-1])
            self._totals[index], self._counts[index] = totals, counts
        return self._totals[index], self._counts[index]

    def total(self, index: int, first: str, last: str) -> decimal.Decimal | None:
        """The exact total of the metric over periods ``first`` to ``last``; NULL over none."""
        totals, counts = self._prefix(index)
        low = bisect.bisect_left(self._ordered, first)
        high = bisect.bisect_right(self._ordered, last)
        if counts[high] == counts[low]:
            return None
        if low == 0:
            return totals[high]
        return _EXACT.subtract(totals[high], totals[low])


def _minus(value: Value, prior: Value) -> Value:
    """value - prior, exactly; NULL where either is NULL or not a number."""
    match (value, prior):
        case (decimal.Decimal(), decimal.Decimal()):
            return _EXACT.subtract(value, prior)
        case (decimal.Decimal() | Fraction(), decimal.Decimal() | Fraction()):
            return Fraction(value) - Fraction(prior)
        case _:
            return None


def _relative(change: Value, prior: Value) -> Fraction | None:
    """change / prior, exactly; NULL where either is NULL or the prior is zero."""
    match (change, prior):
        case (decimal.Decimal() | Fraction(), decimal.Decimal() | Fraction()) if prior != 0:
            return Fraction(change) / Fraction(prior)
        case _:
            return None


Sorted = tuple[bool, bool, decimal.Decimal, str]
"""A key cell as it sorts: NULL last; NaN after every other number; a number by its value;
anything else by its text (text by code point, a date or timestamp by its ISO text, a
boolean ``false`` before ``true``)."""

_NOT_A_NUMBER: Final = decimal.Decimal(0)


def _group_order(row: list[Value], orders: TextKeys) -> tuple[Sorted, ...]:
    """Period then dimension values ascending, NULLs last, each by its type's value.

    >>> def by(orders, *cells):
    ...     return [c for c, in sorted(([c] for c in cells), key=lambda r: _group_order(r, orders))]
    >>> by((False,), "10", "-5", None, "9", "NaN", "-Infinity")
    ['-Infinity', '-5', '9', '10', 'NaN', None]
    >>> by((True,), "b", None, "B", "_x", "10", "9", "é")
    ['10', '9', 'B', '_x', 'b', 'é', None]
    """
    return tuple(_sorted_as(cell, text) for cell, text in zip(row, orders, strict=False))


def _sorted_as(cell: Value, text: bool) -> Sorted:
    if cell is None:
        return (True, False, _NOT_A_NUMBER, "")
    shown = str(cell)
    if text:
        return (False, False, _NOT_A_NUMBER, shown)
    try:
        number = decimal.Decimal(shown)
    except decimal.InvalidOperation:  # a date, a timestamp, a boolean: ISO text orders alike
        return (False, False, _NOT_A_NUMBER, shown)
    if number.is_nan():
        return (False, True, _NOT_A_NUMBER, "")
    return (False, False, number, "")


def _top(rows: list[list[Value]], resolved: Resolved, orders: TextKeys) -> list[list[Value]]:
    top = resolved.top
    width = len(orders)
    if top is None:
        return rows
    columns_per_metric = (
        1 + (3 if resolved.compare is not None else 0) + (resolved.window is not None)
    )
    desc = descending(top.direction)
    if top.by == "period":
        ranked = sorted(rows, key=lambda row: _group_order(row, orders)[1:])
        ranked.sort(key=lambda row: _group_order(row, orders)[0], reverse=desc)
        return ranked[: top.n]
    column = width + columns_per_metric * resolved.metric_names.index(top.by)

    def key(row: list[Value]) -> tuple[bool, Fraction]:
        value = row[column]
        number = value if isinstance(value, decimal.Decimal | Fraction) else None
        if number is None:
            return (True, Fraction(0))
        exact = Fraction(number)
        return (False, -exact if desc else exact)

    ranked = sorted(rows, key=lambda row: (key(row), _group_order(row, orders)))
    if not top.per_period:
        return ranked[: top.n]
    kept: dict[Value, int] = {}
    chosen: list[list[Value]] = []
    for row in ranked:
        seen = kept.get(row[0], 0)
        if seen < top.n:
            kept[row[0]] = seen + 1
            chosen.append(row)
    chosen.sort(key=lambda row: _group_order(row, orders[:1]))
    return chosen


def _text(value: Value) -> str | None:
    match value:
        case None | str():
            return value
        case Refuses():  # refused before any row is written
            raise AssertionError(value)
        case decimal.Decimal():
            return format(value, "f")
        case Fraction():
            return fixed(value.numerator, value.denominator)
        case _:
            assert_never(value)


def fixed(numerator: int, denominator: int) -> str:
    """numerator / denominator rounded half-to-even to six decimal places, as fixed-point text.

    >>> [fixed(5, 10**7), fixed(15, 10**7), fixed(-1, 3), fixed(1, -3), fixed(-5, 10**7)]
    ['0.000000', '0.000002', '-0.333333', '-0.333333', '0.000000']
    """
    if denominator < 0:
        numerator, denominator = -numerator, -denominator
    scaled, remainder = divmod(numerator * 1_000_000, denominator)  # floor, 0 <= remainder < den
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and scaled % 2 == 1):
        scaled += 1
    whole, fraction = divmod(abs(scaled), 1_000_000)
    sign = "-" if scaled < 0 else ""
    return f"{sign}{whole}.{fraction:06d}"
