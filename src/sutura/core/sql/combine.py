"""A derived metric's value from its two referents' values in one row: exact, never rounded.

``ratio`` is first / second, ``difference`` first - second, ``sum`` first + second, ``product``
first * second. NULL in either referent gives NULL, and so does a referent that is not a number
(a first or last day). Two decimals (sums, counts) give an exact decimal for a difference, sum
or product; a ratio, or any operation on an average or ratio, gives an exact fraction (written
with six decimal places, half-to-even, like every ratio). A ratio whose second referent is zero
follows the derived metric's ``zero_denominator``: NULL, or the refusal ``denominator_zero``.

>>> from decimal import Decimal as D
>>> combine(DerivedOp.DIFFERENCE, D("12.50"), D("2.25"), None).unwrap()
Decimal('10.25')
>>> combine(DerivedOp.RATIO, D("1"), D("3"), ZeroDenominator.YIELDS_NULL).unwrap()
Fraction(1, 3)
>>> combine(DerivedOp.RATIO, D("1"), D("0.00"), ZeroDenominator.YIELDS_NULL).unwrap() is None
True
>>> combine(DerivedOp.RATIO, D("1"), D("0"), ZeroDenominator.FAILS).failure().code.value
'denominator_zero'
"""

import decimal
from collections.abc import Callable
from fractions import Fraction
from typing import assert_never

from returns.result import Failure, Result, Success

from sutura.core.definitions.model import DerivedOp, ZeroDenominator
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal

Number = decimal.Decimal | Fraction
Value = decimal.Decimal | Fraction | str | None

_EXACT = decimal.Context(prec=4000, traps=[decimal.Inexact, decimal.InvalidOperation])


def combine(
    op: DerivedOp, first: Value, second: Value, zero: ZeroDenominator | None
) -> Result[Number | None, Refusal]:
    """``op`` applied to ``first`` and ``second``, exactly; see the module for NULLs and zero."""
    if not isinstance(first, Number) or not isinstance(second, Number):
        return Success(None)
    match op:
        case DerivedOp.RATIO:
            return _ratio(first, second, zero)
        case DerivedOp.DIFFERENCE:
            return Success(_decimal_or_fraction(first, second, _EXACT.subtract, _minus))
        case DerivedOp.SUM:
            return Success(_decimal_or_fraction(first, second, _EXACT.add, _plus))
        case DerivedOp.PRODUCT:
            return Success(_decimal_or_fraction(first, second, _EXACT.multiply, _times))
        case _:
            assert_never(op)


def _ratio(
    first: Number, second: Number, zero: ZeroDenominator | None
) -> Result[Number | None, Refusal]:
    if second == 0:
        match zero:
            case ZeroDenominator.YIELDS_NULL | None:
                return Success(None)
            case ZeroDenominator.FAILS:
                return Failure(refusal(RefusalCode.DENOMINATOR_ZERO))
            case _:
                assert_never(zero)
    return Success(Fraction(first) / Fraction(second))


def _minus(a: Fraction, b: Fraction) -> Fraction:
    return a - b


def _plus(a: Fraction, b: Fraction) -> Fraction:
    return a + b


def _times(a: Fraction, b: Fraction) -> Fraction:
    return a * b


def _decimal_or_fraction(
    first: Number,
    second: Number,
    on_decimals: Callable[[decimal.Decimal, decimal.Decimal], decimal.Decimal],
    on_fractions: Callable[[Fraction, Fraction], Fraction],
) -> Number:
    if isinstance(first, decimal.Decimal) and isinstance(second, decimal.Decimal):
        return on_decimals(first, second)
    return on_fractions(Fraction(first), Fraction(second))
