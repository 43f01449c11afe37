"""A question without a grain: one row per group over exactly the days asked, and what the
answer states wherever the range read is not the range asked (docs/questions.md)."""

import datetime

import pytest

from sutura.core.nouns.question import QuestionError
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.question.resolve import PERIOD
from sutura.core.settings import LimitsSettings
from sutura.core.sql.compile import answer_columns
from tests.core.sample_catalog import resolve, resolve_with, resolved
from tests.refusals import expect_refusal

D = datetime.date
SPRING = {"start": "2024-03-10", "end": "2024-04-20"}


def test_without_a_grain_the_range_is_read_exactly_and_rows_have_no_period() -> None:
    found = resolved(grain=None, range=SPRING, dimensions=["channel"])
    assert (found.grain, found.start, found.end) == (None, D(2024, 3, 10), D(2024, 4, 20))
    assert found.keys == ("channel",)
    assert answer_columns(found) == ("channel", "revenue")
    assert (found.range_asked, found.stated_ranges, found.stated_asked) == (None, (), "")


def test_a_grain_left_out_is_no_grain_as_null_is() -> None:
    from sutura.core.nouns.question import convert_question

    left_out = convert_question({"metrics": ["revenue"], "range": SPRING}).unwrap()
    assert left_out.grain is None


def test_a_widened_range_states_the_range_asked_and_the_range_read() -> None:
    found = resolved(grain="month", range=SPRING)
    assert (found.start, found.end) == (D(2024, 3, 1), D(2024, 5, 1))
    assert found.range_asked == (D(2024, 3, 10), D(2024, 4, 20))
    assert found.stated_asked == "2024-03-10/2024-04-20"
    assert found.stated_ranges == ("2024-03-01/2024-05-01",)
    assert found.keys[0] == PERIOD


def test_a_comparison_of_a_widened_range_states_the_range_asked_and_both_read() -> None:
    found = resolved(grain="month", range=SPRING, compare={"to": "previous_year"})
    assert found.stated_asked == "2024-03-10/2024-04-20"
    assert found.stated_ranges == ("2024-03-01/2024-05-01", "2023-03-01/2023-05-01")


def test_a_range_of_whole_periods_states_nothing_more() -> None:
    found = resolved(grain="month", range={"start": "2024-03-01", "end": "2024-05-01"})
    assert (found.range_asked, found.stated_asked, found.stated_ranges) == (None, "", ())


def test_the_last_units_without_a_grain_are_read_exactly() -> None:
    found = resolved(grain=None, range={"last": {"count": 10, "unit": "day"}})
    assert (found.start, found.end) == (D(2024, 5, 7), D(2024, 5, 17))
    assert found.range_asked is None


def test_a_metric_is_asked_without_a_grain_whatever_grains_it_lists() -> None:
    resolved(metrics=["revenue", "revenue_per_unit"], grain=None, range=SPRING)
    expect_refusal(
        resolve(metrics=["revenue", "revenue_per_unit"], grain="week", range=SPRING),
        RefusalCode.GRAIN_NOT_SUPPORTED,
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"compare": {"to": "previous_period"}}, "$.compare"),
        ({"window": {"running": True}}, "$.window"),
        ({"window": {"trailing": 2}}, "$.window"),
        ({"fill": True}, "$.fill"),
        ({"top": {"n": 1, "by": "period"}}, "$.top.by"),
        ({"top": {"n": 1, "by": "revenue", "per": "period"}}, "$.top.per"),
    ],
)
def test_what_needs_a_period_is_malformed_without_a_grain(
    fields: dict[str, object], field: str
) -> None:
    problem = resolve(grain=None, range=SPRING, **fields).failure()
    assert isinstance(problem, QuestionError)
    assert problem.field == field and "needs a grain" in problem.problem


def test_the_days_read_without_a_grain_are_the_days_asked_under_the_range_limit() -> None:
    limits = LimitsSettings(max_range_days=45)  # 41 days asked; 61 at grain month
    assert resolve_with(limits, grain=None, range=SPRING).unwrap().end == D(2024, 4, 20)
    expect_refusal(
        resolve_with(limits, grain="month", range=SPRING), RefusalCode.TIME_RANGE_TOO_LONG
    )
    expect_refusal(
        resolve_with(LimitsSettings(max_range_days=40), grain=None, range=SPRING),
        RefusalCode.TIME_RANGE_TOO_LONG,
    )
