"""Shaping raw text rows into the answer's rows, dividing averages and ratios exactly."""

import pytest

from sutura.core.definitions.model import ZeroDenominator
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery, Passthrough, Quotient, TermIndex
from sutura.core.sql.shape import shape_rows
from tests.core.sample_catalog import CATALOG, resolved
from tests.refusals import expect_refusal


def _compiled(*metrics: str) -> CompiledQuery:
    grain = "month" if "revenue_per_unit" in metrics else "day"
    return compile_question(
        resolved(metrics=list(metrics), grain=grain), CATALOG, SourceFacts(dialect=Dialect.DUCKDB)
    )


def test_rows_without_quotients_pass_through_untouched() -> None:
    compiled = _compiled("revenue", "units")
    rows: list[list[str | None]] = [["2024-01-01", "30.50", None], ["2024-01-02", None, "7"]]
    assert shape_rows(compiled, rows).unwrap() is rows


def test_an_average_is_the_exact_sum_over_the_count_to_six_places() -> None:
    compiled = _compiled("revenue", "average_order_value")
    rows: list[list[str | None]] = [
        ["2024-01-01", "30.50", "30.50", "2"],
        ["2024-01-02", "10.00", "10.00", "3"],
        ["2024-01-03", "-2", "-2", "3"],
    ]
    assert shape_rows(compiled, rows).unwrap() == [
        ["2024-01-01", "30.50", "15.250000"],
        ["2024-01-02", "10.00", "3.333333"],
        ["2024-01-03", "-2", "-0.666667"],
    ]


def test_quotients_round_half_to_even_at_the_sixth_place() -> None:
    compiled = _compiled("average_order_value")
    halves = [["d", "0.0000025", "1"], ["d", "0.0000035", "1"], ["d", "-0.0000025", "1"]]
    shaped = shape_rows(compiled, [list(r) for r in halves]).unwrap()
    assert [row[1] for row in shaped] == ["0.000002", "0.000004", "-0.000002"]


def test_an_average_of_no_rows_is_null() -> None:
    shaped = shape_rows(_compiled("average_order_value"), [["d", None, "0"]]).unwrap()
    assert shaped == [["d", None]]


def test_huge_exact_parts_divide_without_losing_digits() -> None:
    numerator = "170141183460469231731687303715884105727"
    shaped = shape_rows(_compiled("average_order_value"), [["d", numerator, "3"]]).unwrap()
    assert shaped == [["d", "56713727820156410577229101238628035242.333333"]]


def test_a_float_part_is_divided_as_the_decimal_its_text_denotes() -> None:
    shaped = shape_rows(_compiled("average_order_value"), [["d", "1e+20", "3"]]).unwrap()
    assert shaped == [["d", "33333333333333333333.333333"]]


def test_a_zero_denominator_yields_null_under_yields_null() -> None:
    compiled = _compiled("paid_share")
    shaped = shape_rows(compiled, [["d", "0", "0"], ["e", "3", "4"]]).unwrap()
    assert shaped == [["d", None], ["e", "0.750000"]]


def test_a_zero_denominator_refuses_the_whole_answer_under_fails() -> None:
    compiled = _compiled("revenue_per_unit")
    outcome = shape_rows(compiled, [["2024-01-01", "30.50", "3"], ["2024-02-01", "7.00", "0"]])
    expect_refusal(outcome, RefusalCode.DENOMINATOR_ZERO)


# (numerator, denominator) cells of one row, and whether the denominator counts as zero.
RATIO_ROWS: list[tuple[list[str | None], str | None]] = [
    (["6", "3"], "2.000000"),
    (["0", "3"], "0.000000"),
    ([None, "3"], None),  # the numerator aggregated nothing over a real denominator
    (["6", "0"], "zero"),
    ([None, "0"], "zero"),  # a numerator that aggregated nothing does not hide the zero
    (["6", None], "zero"),  # a denominator that aggregated nothing is zero
    ([None, None], "zero"),
    (["6", "4", "2"], "3.000000"),  # an average denominator: sum 4 over count 2
    (["6", "0.00", "2"], "zero"),  # an average of zero
    (["6", None, "0"], "zero"),  # an average of no values
]


def _ratio_query(rule: ZeroDenominator, width: int) -> CompiledQuery:
    """numerator / denominator, where the denominator is an average when there are 3 cells."""
    denominator = TermIndex(value=2, count=3 if width == 3 else None)
    ratio = Quotient(numerator=TermIndex(value=1), denominator=denominator, zero_denominator=rule)
    return CompiledQuery(
        sql="",
        params=(),
        columns=("period", "ratio"),
        plan=(),
        outputs=(Passthrough(index=0), ratio),
        selected_width=1 + width,
        source="warehouse",
        dialect=Dialect.DUCKDB,
    )


@pytest.mark.parametrize(("cells", "expected"), RATIO_ROWS)
def test_a_yields_null_ratio_is_null_wherever_its_denominator_is_zero_or_aggregated_nothing(
    cells: list[str | None], expected: str | None
) -> None:
    compiled = _ratio_query(ZeroDenominator.YIELDS_NULL, len(cells))
    shaped = shape_rows(compiled, [["d", *cells]]).unwrap()
    assert shaped == [["d", None if expected == "zero" else expected]]


@pytest.mark.parametrize(("cells", "expected"), RATIO_ROWS)
def test_a_fails_ratio_refuses_wherever_its_denominator_is_zero_or_aggregated_nothing(
    cells: list[str | None], expected: str | None
) -> None:
    compiled = _ratio_query(ZeroDenominator.FAILS, len(cells))
    two: list[str | None] = ["c", "6", "3", "1"]  # 6 / 3 (an average: 3 / 1)
    del two[1 + len(cells) :]
    shaped = shape_rows(compiled, [two, ["d", *cells]])
    if expected == "zero":
        expect_refusal(shaped, RefusalCode.DENOMINATOR_ZERO)
    else:
        assert shaped.unwrap() == [["c", "2.000000"], ["d", expected]]


def test_a_fails_ratio_whose_numerator_aggregated_no_rows_refuses_at_a_zero_denominator() -> None:
    compiled = _compiled("revenue_per_unit")
    outcome = shape_rows(compiled, [["2024-01-01", "30.50", "3"], ["2024-02-01", None, "0"]])
    expect_refusal(outcome, RefusalCode.DENOMINATOR_ZERO)


def test_a_part_that_is_not_a_finite_number_is_refused() -> None:
    outcome = shape_rows(_compiled("average_order_value"), [["d", "inf", "2"]])
    expect_refusal(outcome, RefusalCode.VALUE_NOT_REPRESENTABLE)


def test_every_row_keeps_exactly_the_answers_columns() -> None:
    compiled = compile_question(
        resolved(metrics=["paid_share", "revenue"], dimensions=["channel"]),
        CATALOG,
        SourceFacts(dialect=Dialect.DUCKDB),
    )
    shaped = shape_rows(compiled, [["2024-01-01", "", "1", "2", "5.00"]]).unwrap()
    assert len(shaped[0]) == len(compiled.columns) == 4
    assert shaped == [["2024-01-01", "", "0.500000", "5.00"]]
