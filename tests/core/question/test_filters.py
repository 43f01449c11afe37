"""A caller's filters typed by their dimension: values in one spelling, ops by type."""

import pytest

from sutura.core.definitions.model import Dimension
from sutura.core.expression.types import Family
from sutura.core.nouns.question import Filter, QuestionError, convert_question
from sutura.core.nouns.refusal import Refusal, RefusalCode
from sutura.core.question.filters import FilterOp, ResolvedFilter, checked_filter

QUANTITY = Dimension(name="quantity", column="l_quantity", type=Family.DECIMAL)
SHIPPED = Dimension(name="shipped", column="l_shipdate", type=Family.DATE)
SCANNED = Dimension(name="scanned", column="scanned_at", type=Family.TIMESTAMP)
PAID = Dimension(name="paid", column="is_paid", type=Family.BOOLEAN)
STATUS = Dimension(name="status", column="status", type=Family.TEXT)
WEEKDAY = Dimension(name="weekday", column="d", type=Family.INTEGER, values=("1", "6", "7"))
UNTYPED = Dimension(name="code", column="code")


def _filter(item: dict[str, object]) -> Filter:
    question = {"metrics": ["m"], "grain": "day", "range": {}, "filters": [item]}
    return convert_question(question).unwrap().filters[0]


def _checked(item: dict[str, object], dimension: Dimension) -> object:
    return checked_filter(2, _filter({"dimension": dimension.name, **item}), (dimension,))


@pytest.mark.parametrize(
    ("item", "dimension", "op", "values"),
    [
        ({"op": "lt", "value": 24}, QUANTITY, FilterOp.LT, ("24",)),
        (
            {"op": "between", "low": "0.05", "high": "0.070"},
            QUANTITY,
            FilterOp.BETWEEN,
            ("0.05", "0.070"),
        ),
        ({"op": "ge", "value": "1994-01-01"}, SHIPPED, FilterOp.GE, ("1994-01-01",)),
        ({"op": "le", "value": "2024-01-02 05:00"}, SCANNED, FilterOp.LE, ("2024-01-02T05:00:00",)),
        ({"op": "gt", "value": "2024-01-02"}, SCANNED, FilterOp.GT, ("2024-01-02T00:00:00",)),
        ({"op": "eq", "value": True}, PAID, FilterOp.EQ, ("true",)),
        ({"op": "eq", "value": "false"}, PAID, FilterOp.EQ, ("false",)),
        ({"op": "in", "values": [6, "7", 6]}, WEEKDAY, FilterOp.IN, ("6", "7")),
        ({"op": "is_null"}, STATUS, FilterOp.IS_NULL, ()),
        ({"op": "is_not_null"}, UNTYPED, FilterOp.IS_NOT_NULL, ()),
        ({"op": "eq", "value": "anything"}, UNTYPED, FilterOp.EQ, ("anything",)),
    ],
)
def test_a_filter_value_is_typed_by_its_dimension_in_one_spelling(
    item: dict[str, object], dimension: Dimension, op: FilterOp, values: tuple[str, ...]
) -> None:
    expected = ResolvedFilter(dimension=dimension.name, op=op, values=values)
    assert _checked(item, dimension) == expected


@pytest.mark.parametrize(
    ("item", "dimension", "field"),
    [
        ({"op": "lt", "value": "24 units"}, QUANTITY, "$.filters[2].value"),
        ({"op": "eq", "value": True}, QUANTITY, "$.filters[2].value"),
        ({"op": "ge", "value": "01/02/1994"}, SHIPPED, "$.filters[2].value"),
        (
            {"op": "between", "low": "1994-01-01", "high": "1994-02-30"},
            SHIPPED,
            "$.filters[2].high",
        ),
        ({"op": "between", "low": "0.07", "high": "0.05"}, QUANTITY, "$.filters[2].high"),
        ({"op": "in", "values": ["a", 5]}, STATUS, "$.filters[2].values[1]"),
        ({"op": "eq", "value": "yes"}, PAID, "$.filters[2].value"),
        ({"op": "lt", "value": "m"}, STATUS, "$.filters[2].op"),
        ({"op": "between", "low": "a", "high": "b"}, UNTYPED, "$.filters[2].op"),
        ({"op": "ge", "value": True}, PAID, "$.filters[2].op"),
    ],
)
def test_a_value_of_the_wrong_type_or_an_op_for_another_type_is_malformed_naming_the_field(
    item: dict[str, object], dimension: Dimension, field: str
) -> None:
    found = _checked(item, dimension)
    assert isinstance(found, QuestionError)
    assert found.field == field
    assert "units" not in found.problem and "01/02" not in found.problem


def test_a_listed_dimension_still_constrains_every_value_and_bound() -> None:
    for item in ({"op": "eq", "value": 5}, {"op": "between", "low": 1, "high": 5}):
        found = _checked(item, WEEKDAY)
        assert isinstance(found, Refusal) and found.code is RefusalCode.DIMENSION_VALUE_NOT_ALLOWED
    assert isinstance(_checked({"op": "between", "low": 1, "high": 6}, WEEKDAY), ResolvedFilter)
    assert isinstance(_checked({"op": "is_null"}, WEEKDAY), ResolvedFilter)


def test_a_fraction_sent_as_a_json_number_is_malformed_so_no_decimal_is_rounded() -> None:
    question = {
        "metrics": ["m"],
        "grain": "day",
        "range": {},
        "filters": [{"op": "lt", "dimension": "q", "value": 0.05}],
    }
    problem = convert_question(question).failure()
    assert problem.field == "$.filters[0].value"
    assert "as text" in problem.problem
