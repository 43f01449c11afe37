"""Compare, window, fill and top per period: what a question resolves to, and the conflicting
or out-of-bounds forms that are malformed (naming the field) or refused."""

import datetime

import pytest
from returns.pipeline import is_successful
from returns.result import Result

from sutura.core.nouns.question import CompareTo, QuestionError
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.question.resolve import Problem, Resolved, Running, Trailing
from sutura.core.settings import LimitsSettings
from tests.core.sample_catalog import resolve, resolve_with, resolved
from tests.refusals import expect_refusal

D = datetime.date


def _question_error(value: Result[Resolved, Problem]) -> QuestionError:
    failure = value.failure()
    assert isinstance(failure, QuestionError), failure
    return failure


def test_previous_period_reads_the_range_one_period_earlier_too() -> None:
    found = resolved(compare={"to": "previous_period"})
    assert found.compare is CompareTo.PREVIOUS_PERIOD
    assert found.read_ranges == ((D(2023, 12, 1), D(2024, 4, 1)),)


def test_previous_year_reads_the_same_range_a_year_earlier_as_a_second_range() -> None:
    found = resolved(compare={"to": "previous_year"})
    assert found.read_ranges == (
        (D(2023, 1, 1), D(2023, 4, 1)),
        (D(2024, 1, 1), D(2024, 4, 1)),
    )


def test_previous_year_at_grain_week_is_52_weeks_earlier_so_weeks_stay_whole() -> None:
    found = resolved(
        grain="week",
        range={"start": "2024-01-01", "end": "2024-01-15"},
        compare={"to": "previous_year"},
    )
    assert found.read_ranges[0] == (D(2023, 1, 2), D(2023, 1, 16))
    assert found.read_ranges[0][0].weekday() == 0


def test_a_trailing_window_reads_back_the_periods_before_the_range_start() -> None:
    found = resolved(window={"trailing": 3})
    assert found.window == Trailing(periods=3)
    assert found.read_ranges == ((D(2023, 11, 1), D(2024, 4, 1)),)


def test_a_running_window_reads_the_range_alone() -> None:
    found = resolved(window={"running": True})
    assert found.window == Running()
    assert found.read_ranges == ((D(2024, 1, 1), D(2024, 4, 1)),)


def test_top_per_period_resolves_to_a_per_period_top() -> None:
    found = resolved(dimensions=["channel"], top={"n": 2, "by": "revenue", "per": "period"})
    assert found.top is not None and found.top.per_period


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"window": {"running": True, "trailing": 3}}, "$.window"),
        ({"window": {}}, "$.window"),
        ({"window": {"running": False}}, "$.window"),
        ({"window": {"trailing": 0}}, "$.window.trailing"),
        ({"window": {"trailing": 10_000}}, "$.window.trailing"),
        ({"window": {"running": True}, "compare": {"to": "previous_year"}}, "$.compare"),
        ({"top": {"n": 2, "by": "period", "per": "period"}}, "$.top.by"),
        ({"top": {"n": 2, "by": "order_count", "per": "period"}}, "$.top.by"),
    ],
)
def test_conflicting_fields_are_a_malformed_question_naming_the_field(
    fields: dict[str, object], field: str
) -> None:
    error = _question_error(resolve(**fields))
    assert error.field == field
    assert "period" not in error.problem or field == "$.top.by"


def test_fill_over_more_periods_than_the_row_limit_is_malformed() -> None:
    limits = LimitsSettings(max_rows=31)
    days = {"start": "2024-01-01", "end": "2024-03-01"}
    error = _question_error(resolve_with(limits, grain="day", range=days, fill=True))
    assert (error.field, error.problem) == (
        "$.fill",
        "the range has more periods of this grain than the row limit",
    )
    month = {"start": "2024-01-01", "end": "2024-02-01"}
    assert is_successful(resolve_with(limits, grain="day", range=month, fill=True))


@pytest.mark.parametrize(
    "metric", ["average_order_value", "customers_ordering", "paid_share", "smallest_order"]
)
def test_a_window_over_a_metric_that_does_not_add_up_is_refused(metric: str) -> None:
    expect_refusal(
        resolve(metrics=[metric], window={"running": True}), RefusalCode.WINDOW_NOT_ADDITIVE
    )


def test_a_compared_window_of_additive_metrics_is_still_malformed_not_refused() -> None:
    error = _question_error(
        resolve(metrics=["revenue"], window={"trailing": 2}, compare={"to": "previous_period"})
    )
    assert error.field == "$.compare"


@pytest.mark.parametrize("metric", ["revenue", "order_count", "paid_orders"])
def test_a_window_over_a_sum_count_or_count_if_resolves(metric: str) -> None:
    assert resolved(metrics=[metric], window={"trailing": 2}).window == Trailing(periods=2)
