"""Rows derived after the statement: comparisons, windows, filled periods and their top, exact
and independent of the engine (the statement's rows are given here as an engine returns them)."""

import pytest

from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.sql.compile import compile_question
from sutura.core.sql.shape import Row, shape_rows
from tests.core.sample_catalog import CATALOG, resolved
from tests.refusals import expect_refusal


def _shaped(fetched: list[Row], max_rows: int = 100, **fields: object) -> list[Row]:
    compiled = compile_question(resolved(**fields), CATALOG, SourceFacts(dialect=Dialect.DUCKDB))
    return shape_rows(compiled, fetched, max_rows).unwrap()


def test_a_comparison_is_exact_and_null_without_a_prior_or_over_a_zero_one() -> None:
    rows = _shaped(
        [
            ["2023-12-01", "0.00"],
            ["2024-01-01", "10.50"],
            ["2024-02-01", "12.25"],
            ["2024-04-01", "3.00"],
        ],
        compare={"to": "previous_period"},
        range={"start": "2024-01-01", "end": "2024-05-01"},
    )
    assert rows == [
        ["2024-01-01", "10.50", "0.00", "10.50", None],
        ["2024-02-01", "12.25", "10.50", "1.75", "0.166667"],
        ["2024-04-01", "3.00", None, None, None],
    ]


def test_an_average_is_compared_from_its_exact_value_not_its_rounded_text() -> None:
    rows = _shaped(
        [["2023-12-01", "2", "3"], ["2024-01-01", "1", "3"]],
        metrics=["average_order_value"],
        compare={"to": "previous_period"},
        range={"start": "2024-01-01", "end": "2024-02-01"},
    )
    assert rows == [["2024-01-01", "0.333333", "0.666667", "-0.333333", "-0.500000"]]


def test_a_trailing_window_skips_missing_periods_and_null_values() -> None:
    rows = _shaped(
        [
            ["2023-11-01", "1.00"],
            ["2024-01-01", None],
            ["2024-02-01", "2.00"],
            ["2024-03-01", "4.00"],
        ],
        window={"trailing": 3},
    )
    assert rows == [
        ["2024-01-01", None, "1.00"],
        ["2024-02-01", "2.00", "2.00"],
        ["2024-03-01", "4.00", "6.00"],
    ]


def test_fill_adds_zero_at_the_scale_of_other_values_and_carries_the_running_total() -> None:
    rows = _shaped([["2024-02-01", "2.50"]], window={"running": True}, fill=True)
    assert rows == [
        ["2024-01-01", "0.00", "0.00"],
        ["2024-02-01", "2.50", "2.50"],
        ["2024-03-01", "0.00", "2.50"],
    ]


def test_fill_holds_null_for_an_average_and_zero_for_a_count() -> None:
    rows = _shaped(
        [["2024-03-01", "4", "6.00", "3"]],
        metrics=["order_count", "average_order_value"],
        fill=True,
    )
    assert rows == [
        ["2024-01-01", "0", None],
        ["2024-02-01", "0", None],
        ["2024-03-01", "4", "2.000000"],
    ]


def test_fill_with_dimensions_fills_every_group_found() -> None:
    rows = _shaped(
        [["2024-01-01", "web", "1.00"], ["2024-03-01", None, "2.00"]],
        dimensions=["channel"],
        fill=True,
    )
    assert [row[:2] for row in rows] == [
        ["2024-01-01", "web"],
        ["2024-01-01", None],
        ["2024-02-01", "web"],
        ["2024-02-01", None],
        ["2024-03-01", "web"],
        ["2024-03-01", None],
    ]


def test_a_filled_answer_over_the_row_limit_is_refused_never_cut() -> None:
    compiled = compile_question(
        resolved(fill=True, dimensions=["channel"]), CATALOG, SourceFacts(dialect=Dialect.DUCKDB)
    )
    fetched: list[Row] = [["2024-01-01", "web", "1.00"], ["2024-01-01", "store", "1.00"]]
    expect_refusal(shape_rows(compiled, fetched, 5), RefusalCode.RESULT_TOO_LARGE)


@pytest.mark.parametrize(("direction", "kept"), [("desc", ["b", "a"]), ("asc", ["a", "b"])])
def test_top_per_period_over_derived_rows_ranks_within_each_period(
    direction: str, kept: list[str]
) -> None:
    rows = _shaped(
        [
            ["2024-01-01", "a", "1.00"],
            ["2024-01-01", "b", "2.00"],
            ["2024-01-01", None, None],
            ["2024-02-01", "a", "5.00"],
            ["2024-02-01", "b", "3.00"],
        ],
        dimensions=["channel"],
        fill=True,
        top={"n": 1, "by": "revenue", "direction": direction, "per": "period"},
    )
    firsts = [row[1] for row in rows]
    assert [row[0] for row in rows] == ["2024-01-01", "2024-02-01", "2024-03-01"]
    assert firsts[0] == kept[0]
