"""Calendar arithmetic for grains: floor, ceil and shift a date by whole periods.

A period is a half-open bucket ``[start, next start)``. Weeks are ISO weeks and start on
Monday; quarters start in January, April, July and October. Every function is total: a result
that would leave the calendar ``datetime.date`` can hold is ``None`` rather than an exception.

>>> floor_period(datetime.date(2024, 5, 17), Grain.QUARTER)
datetime.date(2024, 4, 1)
>>> ceil_period(datetime.date(2024, 5, 17), Grain.WEEK)
datetime.date(2024, 5, 20)
>>> shift_periods(datetime.date(2024, 1, 31), Grain.MONTH, 1)
datetime.date(2024, 2, 29)
"""

import calendar
import datetime
from typing import assert_never

from sutura.core.nouns.grain import Grain

_MONTHS_PER: dict[Grain, int] = {Grain.MONTH: 1, Grain.QUARTER: 3, Grain.YEAR: 12}


def floor_period(day: datetime.date, grain: Grain) -> datetime.date:
    """The first day of the period of ``grain`` that contains ``day``.

    >>> floor_period(datetime.date(2024, 5, 17), Grain.WEEK)
    datetime.date(2024, 5, 13)
    """
    match grain:
        case Grain.DAY:
            return day
        case Grain.WEEK:
            # 0001-01-01 is a Monday, so flooring to a week never leaves the calendar.
            return day - datetime.timedelta(days=day.weekday())
        case Grain.MONTH:
            return day.replace(day=1)
        case Grain.QUARTER:
            return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
        case Grain.YEAR:
            return day.replace(month=1, day=1)
        case _:
            assert_never(grain)


def ceil_period(day: datetime.date, grain: Grain) -> datetime.date | None:
    """``day`` itself when it starts a period of ``grain``, else the start of the next period.

    >>> ceil_period(datetime.date(2024, 4, 1), Grain.QUARTER)
    datetime.date(2024, 4, 1)
    >>> ceil_period(datetime.date(9999, 12, 2), Grain.MONTH) is None
    True
    """
    start = floor_period(day, grain)
    return start if start == day else shift_periods(start, grain, 1)


def shift_periods(day: datetime.date, grain: Grain, count: int) -> datetime.date | None:
    """``day`` moved by ``count`` periods of ``grain`` (negative moves back).

    Moving by months keeps the day of the month, clamped to the month's last day.

    >>> shift_periods(datetime.date(2024, 3, 4), Grain.WEEK, -2)
    datetime.date(2024, 2, 19)
    >>> shift_periods(datetime.date(1, 1, 1), Grain.DAY, -1) is None
    True
    """
    match grain:
        case Grain.DAY:
            return _shift_days(day, count)
        case Grain.WEEK:
            return _shift_days(day, 7 * count)
        case Grain.MONTH | Grain.QUARTER | Grain.YEAR:
            return _shift_months(day, count * _MONTHS_PER[grain])
        case _:
            assert_never(grain)


def _shift_days(day: datetime.date, days: int) -> datetime.date | None:
    try:
        return day + datetime.timedelta(days=days)
    except OverflowError:
        return None


def _shift_months(day: datetime.date, months: int) -> datetime.date | None:
    """``day`` moved by ``months`` calendar months, clamping the day of the month."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not datetime.MINYEAR <= year <= datetime.MAXYEAR:
        return None
    last_day = calendar.monthrange(year, month + 1)[1]
    return datetime.date(year, month + 1, min(day.day, last_day))


def widen_to_periods(
    start: datetime.date, end: datetime.date, grain: Grain
) -> tuple[datetime.date, datetime.date] | None:
    """The smallest run of whole periods of ``grain`` that covers ``[start, end)``.

    The start is floored and the end ceiled, so every period reported is complete.

    >>> widen_to_periods(datetime.date(2024, 1, 15), datetime.date(2024, 2, 2), Grain.MONTH)
    (datetime.date(2024, 1, 1), datetime.date(2024, 3, 1))
    """
    end_ceiled = ceil_period(end, grain)
    if end_ceiled is None:
        return None
    return floor_period(start, grain), end_ceiled


def last_periods(
    today: datetime.date, unit: Grain, count: int, *, include_current: bool
) -> tuple[datetime.date, datetime.date] | None:
    """The last ``count`` whole periods of ``unit`` as a half-open range, relative to ``today``.

    The range ends at the start of the current period, or of the next one when
    ``include_current`` (then the current, still running, period is the last of the ``count``).

    >>> last_periods(datetime.date(2024, 5, 17), Grain.MONTH, 3, include_current=False)
    (datetime.date(2024, 2, 1), datetime.date(2024, 5, 1))
    >>> last_periods(datetime.date(2024, 5, 17), Grain.MONTH, 1, include_current=True)
    (datetime.date(2024, 5, 1), datetime.date(2024, 6, 1))
    """
    current = floor_period(today, unit)
    end = shift_periods(current, unit, 1) if include_current else current
    if end is None:
        return None
    start = shift_periods(end, unit, -count)
    return None if start is None else (start, end)


def min_days(unit: Grain, count: int) -> int:
    """A lower bound on the number of days in ``count`` consecutive periods of ``unit``.

    >>> min_days(Grain.MONTH, 2)
    56
    """
    return _min_days_per(unit) * count


def _min_days_per(unit: Grain) -> int:
    match unit:
        case Grain.DAY:
            return 1
        case Grain.WEEK:
            return 7
        case Grain.MONTH:
            return 28
        case Grain.QUARTER:
            return 89
        case Grain.YEAR:
            return 365
        case _:
            assert_never(unit)
