"""A derived metric's value in one row, computed from its leaves through a nested tree: the one
ratio rule at every level, then the exact scale."""

from decimal import Decimal
from fractions import Fraction

import pytest

from sutura.core.definitions.model import Derived, DerivedOp, Grain, ZeroDenominator
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.sql.combine import Refuses, Value, evaluated


def _ratio(name: str, of: tuple[str, str], zero: ZeroDenominator, scale: str | None) -> Derived:
    return Derived(
        name=name,
        op=DerivedOp.RATIO,
        of=of,
        grains=(Grain.DAY,),
        zero_denominator=zero,
        scale=scale,
    )


PLACED = Derived(name="placed", op=DerivedOp.SUM, of=("kept", "cancelled"), grains=(Grain.DAY,))
RATE = _ratio("rate", ("cancelled", "placed"), ZeroDenominator.YIELDS_NULL, "100")
STRICT = _ratio("strict", ("cancelled", "placed"), ZeroDenominator.FAILS, None)
OVER_STRICT = _ratio("over", ("kept", "strict"), ZeroDenominator.YIELDS_NULL, None)
TREE = {d.name: d for d in (PLACED, RATE, STRICT, OVER_STRICT)}


def _value(name: str, kept: Value, cancelled: Value) -> Value:
    return evaluated(name, {"kept": kept, "cancelled": cancelled}, TREE.get, {})


@pytest.mark.parametrize(
    ("name", "kept", "cancelled", "expected"),
    [
        ("placed", Decimal(90), Decimal(10), Decimal(100)),
        ("rate", Decimal(90), Decimal(10), Fraction(10)),
        ("rate", Decimal(2), Decimal(1), Fraction(100, 3)),
        # an inner sum of two NULLs is NULL: a zero denominator for the ratio around it
        ("rate", None, None, None),
        ("strict", Decimal(0), Decimal(0), Refuses(code=RefusalCode.DENOMINATOR_ZERO)),
        # an outer ratio over a value that refuses where shown refuses too ...
        ("over", Decimal(0), Decimal(0), Refuses(code=RefusalCode.DENOMINATOR_ZERO)),
        ("over", Decimal(3), Decimal(1), Fraction(12)),
    ],
)
def test_a_nested_value_follows_the_ratio_rule_at_every_level(
    name: str, kept: Value, cancelled: Value, expected: Value
) -> None:
    assert _value(name, kept, cancelled) == expected


def test_an_outer_ratio_over_a_refusing_numerator_refuses_where_shown() -> None:
    flipped = _ratio("flipped", ("strict", "kept"), ZeroDenominator.YIELDS_NULL, "100")
    tree = {**TREE, "flipped": flipped}
    value = evaluated("flipped", {"kept": Decimal(5), "cancelled": None}, tree.get, {})
    assert value == Refuses(code=RefusalCode.DENOMINATOR_ZERO)
    # ... unless its own denominator is zero: its own rule decides, whatever the numerator
    value = evaluated("flipped", {"kept": Decimal(0), "cancelled": None}, tree.get, {})
    assert value is None


def test_a_scale_keeps_a_sum_an_exact_decimal_with_the_scales_added() -> None:
    scaled = Derived(
        name="cents", op=DerivedOp.SUM, of=("kept", "cancelled"), grains=(Grain.DAY,), scale="100"
    )
    value = evaluated(
        "cents", {"kept": Decimal("1.25"), "cancelled": Decimal("0.50")}, {"cents": scaled}.get, {}
    )
    assert value == Decimal("175.00") and str(value) == "175.00"
