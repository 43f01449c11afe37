"""Resolving a question against the pinned catalog: every check that needs no data."""

import datetime

import pytest
from returns.result import Result

from sutura.core.nouns.grain import Grain
from sutura.core.nouns.question import Direction, QuestionError
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.question.filters import FilterOp, ResolvedFilter
from sutura.core.question.resolve import Problem, Resolved, ResolvedTop
from sutura.core.settings import LimitsSettings
from tests.core.sample_catalog import ORDER_COUNT, REVENUE, resolve, resolve_with, resolved
from tests.refusals import expect_refusal

D = datetime.date


def _question_error(value: Result[Resolved, Problem]) -> QuestionError:
    failure = value.failure()
    assert isinstance(failure, QuestionError), failure
    return failure


def test_a_listed_metric_resolves_with_its_definition_grain_and_range() -> None:
    found = resolved(metrics=["revenue", "order_count"], grain="month")
    assert found.metrics == (REVENUE, ORDER_COUNT)
    assert found.metric_names == ("revenue", "order_count")
    assert (found.grain, found.start, found.end) == (Grain.MONTH, D(2024, 1, 1), D(2024, 4, 1))


def test_the_range_is_widened_to_whole_periods_of_the_grain() -> None:
    found = resolved(grain="quarter", range={"start": "2024-02-15", "end": "2024-04-02"})
    assert (found.start, found.end) == (D(2024, 1, 1), D(2024, 7, 1))
    weekly = resolved(grain="week", range={"start": "2024-01-03", "end": "2024-01-09"})
    assert (weekly.start, weekly.end) == (D(2024, 1, 1), D(2024, 1, 15))


def test_an_unknown_metric_is_refused_without_echoing_its_name() -> None:
    refusal = expect_refusal(
        resolve(metrics=["revenue", "DROP TABLE x"]), RefusalCode.METRIC_UNKNOWN
    )
    assert "DROP" not in refusal.detail and refusal.status == 404


def test_a_metric_named_twice_is_a_malformed_question() -> None:
    error = _question_error(resolve(metrics=["revenue", "revenue"]))
    assert error.field == "$.metrics"


def test_metrics_on_different_models_are_not_combinable() -> None:
    expect_refusal(resolve(metrics=["revenue", "signups"]), RefusalCode.METRICS_NOT_COMBINABLE)


def test_a_dimension_two_metrics_define_differently_is_not_combinable() -> None:
    outcome = resolve(metrics=["order_count", "shipped_orders"], dimensions=["region"])
    expect_refusal(outcome, RefusalCode.METRICS_NOT_COMBINABLE)


def test_a_grain_any_requested_metric_does_not_list_is_refused() -> None:
    outcome = resolve(metrics=["revenue", "revenue_per_unit"], grain="week")
    expect_refusal(outcome, RefusalCode.GRAIN_NOT_SUPPORTED)


def test_more_dimensions_than_the_limit_are_refused() -> None:
    limits = LimitsSettings(max_dimensions=1)
    outcome = resolve_with(limits, dimensions=["channel", "region"])
    expect_refusal(outcome, RefusalCode.TOO_MANY_DIMENSIONS)


def test_a_dimension_named_twice_is_refused() -> None:
    outcome = resolve(dimensions=["channel", "channel"])
    expect_refusal(outcome, RefusalCode.DUPLICATE_DIMENSION)


def test_a_dimension_the_metric_does_not_list_is_not_permitted() -> None:
    outcome = resolve(dimensions=["customer_id"])
    expect_refusal(outcome, RefusalCode.DIMENSION_NOT_PERMITTED)


def test_a_dimension_only_one_of_two_metrics_lists_is_not_permitted() -> None:
    outcome = resolve(metrics=["order_count", "shipped_orders"], dimensions=["channel"])
    expect_refusal(outcome, RefusalCode.DIMENSION_NOT_PERMITTED)


def test_a_filter_on_an_unlisted_dimension_is_not_permitted() -> None:
    outcome = resolve(filters=[{"op": "eq", "dimension": "country", "value": "x"}])
    expect_refusal(outcome, RefusalCode.DIMENSION_NOT_PERMITTED)


def test_a_dimension_without_allowed_values_is_filtered_on_any_value() -> None:
    found = resolved(filters=[{"op": "eq", "dimension": "segment", "value": "smb"}])
    assert found.filters == (ResolvedFilter(dimension="segment", op=FilterOp.EQ, values=("smb",)),)


@pytest.mark.parametrize(
    "item",
    [
        {"op": "eq", "dimension": "region", "value": "Mars"},
        {"op": "in", "dimension": "region", "values": ["EU", "Mars"]},
        {"op": "not_in", "dimension": "channel", "values": ["phone"]},
        {"op": "eq", "dimension": "region", "value": "eu"},
    ],
)
def test_a_filter_value_outside_the_allowlist_is_refused(item: dict[str, object]) -> None:
    refusal = expect_refusal(resolve(filters=[item]), RefusalCode.DIMENSION_VALUE_NOT_ALLOWED)
    assert "Mars" not in refusal.detail


def test_filters_resolve_to_their_operator_and_distinct_values() -> None:
    found = resolved(
        filters=[
            {"op": "eq", "dimension": "region", "value": "EU"},
            {"op": "in", "dimension": "channel", "values": ["web", "store", "web"]},
            {"op": "not_in", "dimension": "region", "values": ["US"]},
        ]
    )
    assert found.filters == (
        ResolvedFilter(dimension="region", op=FilterOp.EQ, values=("EU",)),
        ResolvedFilter(dimension="channel", op=FilterOp.IN, values=("web", "store")),
        ResolvedFilter(dimension="region", op=FilterOp.NOT_IN, values=("US",)),
    )


def test_the_empty_string_is_an_allowed_value_when_listed() -> None:
    found = resolved(filters=[{"op": "eq", "dimension": "channel", "value": ""}])
    assert found.filters[0].values == ("",)


@pytest.mark.parametrize(
    "rng",
    [
        {"start": "2024-04-01", "end": "2024-01-01"},
        {"start": "2024-01-01", "end": "2024-01-01"},
        {"start": "2024-01-01"},
        {"start": "2024-01-01", "end": "2024-02-01", "last": {"count": 1, "unit": "month"}},
        {},
    ],
)
def test_a_mixed_incomplete_or_inverted_range_is_a_malformed_question(
    rng: dict[str, object],
) -> None:
    assert _question_error(resolve(range=rng)).field == "$.range"


def test_last_months_end_at_the_start_of_the_current_month() -> None:
    found = resolved(range={"last": {"count": 3, "unit": "month"}})
    assert (found.start, found.end) == (D(2024, 2, 1), D(2024, 5, 1))


def test_last_with_the_current_period_ends_at_the_next_one() -> None:
    found = resolved(range={"last": {"count": 1, "unit": "month", "include_current": True}})
    assert (found.start, found.end) == (D(2024, 5, 1), D(2024, 6, 1))


def test_last_weeks_at_a_month_grain_are_widened_to_whole_months() -> None:
    found = resolved(range={"last": {"count": 2, "unit": "week"}})
    assert (found.start, found.end) == (D(2024, 4, 1), D(2024, 6, 1))
    weekly = resolved(grain="week", range={"last": {"count": 2, "unit": "week"}})
    assert (weekly.start, weekly.end) == (D(2024, 4, 29), D(2024, 5, 13))


def test_a_range_longer_than_the_limit_is_refused() -> None:
    outcome = resolve(range={"start": "2000-01-01", "end": "2024-01-01"})
    expect_refusal(outcome, RefusalCode.TIME_RANGE_TOO_LONG)


def test_the_limit_applies_to_the_widened_range() -> None:
    limits = LimitsSettings(max_range_days=40)
    narrow = {"start": "2024-01-20", "end": "2024-02-10"}
    assert resolve_with(limits, grain="day", range=narrow).unwrap().start == D(2024, 1, 20)
    outcome = resolve_with(limits, grain="month", range=narrow)
    expect_refusal(outcome, RefusalCode.TIME_RANGE_TOO_LONG)


def test_a_huge_last_count_is_refused_as_too_long() -> None:
    outcome = resolve(range={"last": {"count": 100_000, "unit": "year"}})
    expect_refusal(outcome, RefusalCode.TIME_RANGE_TOO_LONG)


def test_a_range_beyond_the_calendar_is_a_malformed_question() -> None:
    outcome = resolve(grain="year", range={"start": "9999-06-01", "end": "9999-07-01"})
    assert _question_error(outcome).field == "$.range"


def test_top_by_a_requested_metric_or_period_resolves() -> None:
    found = resolved(top={"n": 3, "by": "revenue"})
    assert found.top == ResolvedTop(n=3, by="revenue", direction=Direction.DESC)
    by_period = resolved(top={"n": 2, "by": "period", "direction": "asc"})
    assert by_period.top == ResolvedTop(n=2, by="period", direction=Direction.ASC)


@pytest.mark.parametrize("by", ["order_count", "region", "created_at"])
def test_top_by_anything_not_requested_is_a_malformed_question(by: str) -> None:
    assert _question_error(resolve(top={"n": 3, "by": by})).field == "$.top.by"


def test_top_keeping_more_rows_than_the_limit_is_a_malformed_question() -> None:
    outcome = resolve_with(LimitsSettings(max_rows=5), top={"n": 6, "by": "revenue"})
    assert _question_error(outcome).field == "$.top.n"


def test_the_same_question_resolves_to_an_equal_hashable_value() -> None:
    first = resolved(
        dimensions=["region"], filters=[{"op": "in", "dimension": "region", "values": ["EU"]}]
    )
    second = resolved(
        dimensions=["region"], filters=[{"op": "in", "dimension": "region", "values": ["EU"]}]
    )
    assert first == second and hash(first) == hash(second)
    assert {first: 1}[second] == 1
