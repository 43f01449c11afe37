"""Calendar arithmetic for grains."""

import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sutura.core.nouns.grain import Grain
from sutura.core.question.periods import (
    ceil_period,
    floor_period,
    last_periods,
    min_days,
    shift_periods,
    widen_to_periods,
)

D = datetime.date
dates = st.dates(min_value=D(2, 1, 1), max_value=D(9998, 1, 1))


@pytest.mark.parametrize(
    ("day", "grain", "expected"),
    [
        (D(2024, 5, 17), Grain.DAY, D(2024, 5, 17)),
        (D(2024, 5, 17), Grain.WEEK, D(2024, 5, 13)),
        (D(2024, 5, 13), Grain.WEEK, D(2024, 5, 13)),
        (D(2024, 5, 19), Grain.WEEK, D(2024, 5, 13)),
        (D(2021, 1, 1), Grain.WEEK, D(2020, 12, 28)),
        (D(2024, 5, 17), Grain.MONTH, D(2024, 5, 1)),
        (D(2024, 12, 31), Grain.QUARTER, D(2024, 10, 1)),
        (D(2024, 3, 31), Grain.QUARTER, D(2024, 1, 1)),
        (D(2024, 5, 17), Grain.YEAR, D(2024, 1, 1)),
    ],
)
def test_floor_gives_the_first_day_of_the_period(
    day: datetime.date, grain: Grain, expected: datetime.date
) -> None:
    assert floor_period(day, grain) == expected


def test_a_week_starts_on_the_iso_monday() -> None:
    start = floor_period(D(2026, 1, 1), Grain.WEEK)
    assert start.isoweekday() == 1
    assert start.isocalendar()[:2] == D(2026, 1, 1).isocalendar()[:2]


@pytest.mark.parametrize(
    ("day", "grain", "expected"),
    [
        (D(2024, 4, 1), Grain.QUARTER, D(2024, 4, 1)),
        (D(2024, 4, 2), Grain.QUARTER, D(2024, 7, 1)),
        (D(2024, 12, 2), Grain.MONTH, D(2025, 1, 1)),
        (D(2024, 5, 14), Grain.WEEK, D(2024, 5, 20)),
        (D(2024, 1, 1), Grain.YEAR, D(2024, 1, 1)),
    ],
)
def test_ceil_keeps_a_period_start_and_moves_anything_else_to_the_next(
    day: datetime.date, grain: Grain, expected: datetime.date
) -> None:
    assert ceil_period(day, grain) == expected


@pytest.mark.parametrize(
    ("day", "grain", "count", "expected"),
    [
        (D(2024, 1, 31), Grain.MONTH, 1, D(2024, 2, 29)),
        (D(2024, 3, 31), Grain.MONTH, -1, D(2024, 2, 29)),
        (D(2024, 2, 29), Grain.YEAR, 1, D(2025, 2, 28)),
        (D(2024, 11, 1), Grain.QUARTER, 2, D(2025, 5, 1)),
        (D(2024, 1, 1), Grain.MONTH, -13, D(2022, 12, 1)),
        (D(2024, 3, 4), Grain.WEEK, -2, D(2024, 2, 19)),
        (D(2024, 3, 4), Grain.DAY, 30, D(2024, 4, 3)),
    ],
)
def test_shift_moves_by_whole_periods_clamping_the_day_of_month(
    day: datetime.date, grain: Grain, count: int, expected: datetime.date
) -> None:
    assert shift_periods(day, grain, count) == expected


@pytest.mark.parametrize("grain", list(Grain))
def test_leaving_the_calendar_gives_none_instead_of_raising(grain: Grain) -> None:
    assert shift_periods(datetime.date.max, grain, 1) is None
    assert shift_periods(datetime.date.min, grain, -1) is None


def test_ceiling_past_the_last_whole_period_gives_none() -> None:
    assert ceil_period(D(9999, 12, 2), Grain.MONTH) is None
    assert ceil_period(D(9999, 12, 31), Grain.DAY) == D(9999, 12, 31)


@given(day=dates, grain=st.sampled_from(list(Grain)))
def test_every_day_lies_in_the_half_open_period_its_floor_starts(
    day: datetime.date, grain: Grain
) -> None:
    start = floor_period(day, grain)
    following = shift_periods(start, grain, 1)
    assert following is not None
    assert start <= day < following
    assert floor_period(start, grain) == start


@given(start=dates, length=st.integers(1, 400), grain=st.sampled_from(list(Grain)))
def test_widening_covers_the_range_with_whole_periods(
    start: datetime.date, length: int, grain: Grain
) -> None:
    end = start + datetime.timedelta(days=length)
    widened = widen_to_periods(start, end, grain)
    assert widened is not None
    low, high = widened
    assert low <= start and end <= high
    assert floor_period(low, grain) == low and floor_period(high, grain) == high


def test_last_periods_end_at_the_start_of_the_current_period() -> None:
    today = D(2024, 5, 17)
    assert last_periods(today, Grain.MONTH, 3, include_current=False) == (
        D(2024, 2, 1),
        D(2024, 5, 1),
    )
    assert last_periods(today, Grain.WEEK, 1, include_current=False) == (
        D(2024, 5, 6),
        D(2024, 5, 13),
    )


def test_last_periods_with_the_current_one_end_at_the_next_period() -> None:
    assert last_periods(D(2024, 5, 17), Grain.QUARTER, 2, include_current=True) == (
        D(2024, 1, 1),
        D(2024, 7, 1),
    )


def test_last_periods_beyond_the_calendar_give_none() -> None:
    assert last_periods(D(2024, 5, 17), Grain.YEAR, 5000, include_current=False) is None


def test_min_days_is_a_lower_bound_on_any_run_of_periods() -> None:
    assert min_days(Grain.YEAR, 10) == 3650
    assert min_days(Grain.QUARTER, 4) <= (D(2025, 1, 1) - D(2024, 1, 1)).days


@given(
    st.dates(min_value=D(100, 1, 1), max_value=D(9998, 1, 1)),
    st.sampled_from(Grain),
    st.integers(min_value=1, max_value=40),
    st.booleans(),
)
def test_last_covers_exactly_count_whole_periods_and_the_current_one_only_when_asked(
    today: datetime.date, unit: Grain, count: int, include_current: bool
) -> None:
    found = last_periods(today, unit, count, include_current=include_current)
    assert found is not None
    start, end = found
    assert floor_period(start, unit) == start and shift_periods(start, unit, count) == end
    assert (start <= today < end) is include_current
    assert end <= today or floor_period(today, unit) == shift_periods(end, unit, -1)
