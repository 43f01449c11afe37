"""A derived metric's value from its two referents' values in one row: exact, never rounded.

``ratio`` is first / second, ``difference`` first - second, ``sum`` first + second and
``product`` first * second. Two decimals (sums, counts) give an exact decimal for a difference,
sum or product; a ratio, or any operation on an average or ratio, gives an exact fraction
(written with six decimal places, half-to-even, like every ratio).

NULL follows the rules of every ratio (docs/semantics.md, "Zero and NULL in ratios"): a ratio's
second referent is a zero denominator where it is zero or NULL (it aggregated nothing), and
there the derived metric's ``zero_denominator`` decides, whatever the first: NULL, or a value
that refuses the answer (``denominator_zero``) if the answer shows it. Elsewhere NULL in either
referent, or a referent that is not a number (a first or last day), gives NULL. A referent that
refuses where shown makes the derived value refuse where shown too.

>>> from decimal import Decimal as D
>>> combine(DerivedOp.DIFFERENCE, D("12.50"), D("2.25"), None)
Decimal('10.25')
>>> combine(DerivedOp.RATIO, D("1"), D("3"), ZeroDenominator.YIELDS_NULL)
Fraction(1, 3)
>>> combine(DerivedOp.RATIO, D("1"), D("0.00"), ZeroDenominator.YIELDS_NULL) is None
True
>>> combine(DerivedOp.RATIO, None, D("0"), ZeroDenominator.FAILS)
Refuses(code=<RefusalCode.DENOMINATOR_ZERO: 'denominator_zero'>)
>>> combine(DerivedOp.RATIO, D("4"), None, ZeroDenominator.FAILS).code.value
'denominator_zero'
>>> combine(DerivedOp.RATIO, None, D("2"), ZeroDenominator.FAILS) is None
True
"""

import decimal
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import assert_never

from sutura.core.definitions.model import DerivedOp, ZeroDenominator
from sutura.core.definitions.tree import DerivedLookup
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.refusal import RefusalCode

Number = decimal.Decimal | Fraction


class Refuses(Frozen, frozen=True):
    """A value the answer cannot show: where a row the answer returns holds it, the whole
    answer is refused with ``code`` (a ratio at a zero denominator under ``fails``)."""

    code: RefusalCode


Value = decimal.Decimal | Fraction | str | Refuses | None

_EXACT = decimal.Context(prec=4000, traps=[decimal.Inexact, decimal.InvalidOperation])
_ZERO_REFUSES = Refuses(code=RefusalCode.DENOMINATOR_ZERO)


def at_zero(rule: ZeroDenominator | None) -> Refuses | None:
    """A ratio's value at a zero denominator: NULL under ``yields_null``, a value that
    refuses where shown under ``fails``."""
    match rule:
        case ZeroDenominator.YIELDS_NULL | None:
            return None
        case ZeroDenominator.FAILS:
            return _ZERO_REFUSES
        case _:
            assert_never(rule)


def evaluated(
    name: str, leaves: Mapping[str, Value], derived: DerivedLookup, known: dict[str, Value]
) -> Value:
    """The value of the metric ``name`` in one row: a leaf's as fetched, a derived metric's
    from its two referents' (each evaluated once per row, kept in ``known``), scaled."""
    if name in known:
        return known[name]
    found = derived(name)
    if found is None:
        value = leaves.get(name)
    else:
        first, second = (evaluated(r, leaves, derived, known) for r in found.of)
        value = scaled(combine(found.op, first, second, found.zero_denominator), found.scale)
    known[name] = value
    return value


def scaled(value: Value, scale: str | None) -> Value:
    """``value`` multiplied by the exact decimal ``scale`` (none: as it is). A decimal stays a
    decimal whose scale is the sum of both (``12.50`` x ``100`` is ``1250.00``); a fraction
    stays a fraction; NULL, text and a value that refuses where shown pass on.

    >>> from decimal import Decimal as D
    >>> scaled(D("12.50"), "100"), scaled(Fraction(1, 3), "100"), scaled(None, "100")
    (Decimal('1250.00'), Fraction(100, 3), None)
    """
    if scale is None:
        return value
    factor = decimal.Decimal(scale)
    match value:
        case decimal.Decimal():
            return _EXACT.multiply(value, factor)
        case Fraction():
            return value * Fraction(factor)
        case str() | Refuses() | None:
            return value
        case _:
            assert_never(value)


def combine(op: DerivedOp, first: Value, second: Value, zero: ZeroDenominator | None) -> Value:
    """``op`` applied to ``first`` and ``second``, exactly; see the module for NULLs and zero."""
    match op:
        case DerivedOp.RATIO:
            return _ratio(first, second, zero)
        case DerivedOp.DIFFERENCE:
            return _both(first, second, _EXACT.subtract, _minus)
        case DerivedOp.SUM:
            return _both(first, second, _EXACT.add, _plus)
        case DerivedOp.PRODUCT:
            return _both(first, second, _EXACT.multiply, _times)
        case _:
            assert_never(op)


def _ratio(first: Value, second: Value, zero: ZeroDenominator | None) -> Value:
    """first / second; a zero or NULL second is a zero denominator, whatever the first."""
    if second is None or (isinstance(second, Number) and second == 0):
        return at_zero(zero)
    return _both(first, second, _over, _over)


def _both(
    first: Value,
    second: Value,
    on_decimals: Callable[[decimal.Decimal, decimal.Decimal], Number],
    on_fractions: Callable[[Fraction, Fraction], Fraction],
) -> Value:
    """``first`` and ``second`` combined, where both are numbers; a referent that refuses
    where shown passes on; NULL otherwise."""
    for referent in (first, second):
        if isinstance(referent, Refuses):
            return referent
    if not isinstance(first, Number) or not isinstance(second, Number):
        return None
    if isinstance(first, decimal.Decimal) and isinstance(second, decimal.Decimal):
        return on_decimals(first, second)
    return on_fractions(Fraction(first), Fraction(second))


def _over(a: Fraction | decimal.Decimal, b: Fraction | decimal.Decimal) -> Fraction:
    return Fraction(a) / Fraction(b)


def _minus(a: Fraction, b: Fraction) -> Fraction:
    return a - b


def _plus(a: Fraction, b: Fraction) -> Fraction:
    return a + b


def _times(a: Fraction, b: Fraction) -> Fraction:
    return a * b
