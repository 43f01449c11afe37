"""The canonical text of driver values."""

import datetime
import decimal
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sutura.core.sql.cells import UnsupportedCellError, cell_text

D = decimal.Decimal


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, None),
        ("", ""),
        ("a\tb", "a\tb"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (9223372036854775807, "9223372036854775807"),
        (-9223372036854775808, "-9223372036854775808"),
        (2**127 - 1, "170141183460469231731687303715884105727"),
        (D("0.10"), "0.10"),
        (D("-0.00"), "-0.00"),
        (D("1E+3"), "1000"),
        (D("1.5E-7"), "0.00000015"),
        (D("12345678901234567890.123456789012345678"), "12345678901234567890.123456789012345678"),
        (0.1, "0.1"),
        (1e20, "1e+20"),
        (-2.5, "-2.5"),
        (datetime.date(2024, 2, 29), "2024-02-29"),
        (datetime.datetime(2024, 2, 29, 13, 5, 0), "2024-02-29T13:05:00"),
        (datetime.datetime(2024, 2, 29, 13, 5, 0, 120), "2024-02-29T13:05:00.000120"),
    ],
)
def test_each_driver_value_has_one_canonical_text(value: object, text: str | None) -> None:
    assert cell_text(value) == text


def test_null_and_the_empty_string_stay_distinct() -> None:
    assert cell_text(None) is None
    assert cell_text("") == ""


@pytest.mark.parametrize(
    "value", [b"\x00", [1], datetime.timedelta(days=1), datetime.time(1, 2), uuid.UUID(int=7)]
)
def test_a_type_without_canonical_text_is_refused_naming_the_type_not_the_value(
    value: object,
) -> None:
    with pytest.raises(UnsupportedCellError) as raised:
        cell_text(value)
    assert type(value).__qualname__ in str(raised.value)
    assert str(value) not in str(raised.value)


@given(st.integers())
def test_integers_are_exact_at_any_size(value: int) -> None:
    assert int(cell_text(value) or "x") == value


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_decimals_are_exact_and_keep_their_scale_without_an_exponent(value: D) -> None:
    text = cell_text(value)
    assert text is not None
    assert "E" not in text.upper()
    assert D(text) == value
    exponent = value.as_tuple().exponent
    assert isinstance(exponent, int)
    assert len(text.partition(".")[2]) == max(-exponent, 0)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip_through_their_text(value: float) -> None:
    assert float(cell_text(value) or "x") == value


def test_negative_zero_is_the_one_cell_of_zero_sql_holds_it_equal_to() -> None:
    assert [cell_text(v) for v in (-0.0, 0.0, -1e-300 * 1e-300)] == ["0.0", "0.0", "0.0"]
