"""Result types of arithmetic, and the common type of values one node chooses between.

The rules, identical on DuckDB, PostgreSQL and Spark (``docs/catalog.md`` states them):

- integers with integers stay integers (``divide`` excepted); anything with a float is a float;
- an integer is computed in 38 whole digits on every engine, never its column's own width
  (``sutura.core.sql.arithmetic.WIDE_INTEGER``): past them every engine refuses alike;
- a decimal sum or difference has the larger scale; a product the sum of the scales; precision
  grows as each engine grows it, capped at 38;
- a quotient is a decimal of scale ``max(6, scales)`` and precision 38, cut toward zero;
- a result over 38 digits whose scale is over 6 is refused: Spark would cut its scale.

>>> money = SqlType(family=Family.DECIMAL, precision=15, scale=2)
>>> shown_type(product_type(money, money))
'decimal(30,4)'
>>> shown_type(quotient_type(money, SqlType(family=Family.INTEGER)))
'decimal(19,6)'
>>> print(product_type(SqlType(family=Family.DECIMAL, precision=30, scale=5), money)[:64])
the product of decimal(30,5) and decimal(15,2) needs 46 digits a
"""

from typing import Final

from sutura.core.expression.types import (
    INTEGER_PRECISION,
    MAX_PRECISION,
    Family,
    SqlType,
    shown_type,
    traits,
)

QUOTIENT_SCALE: Final = 6
"""The fewest decimal places a quotient keeps."""

_SPARK_KEPT_SCALE: Final = 6  # Spark never cuts a result's scale below min(scale, 6)

Result = SqlType | str
"""A type, or the problem that stops it."""


def _digits(kind: SqlType) -> tuple[int, int]:
    """(precision, scale) of a number as a decimal; an integer counts as INTEGER_PRECISION."""
    if kind.scale is None:
        return INTEGER_PRECISION, 0
    return kind.precision or MAX_PRECISION, kind.scale


def _float_or_integer(left: SqlType, right: SqlType) -> SqlType | None:
    """The result when either is a float, or both are integers; None for a decimal result."""
    if not (traits(left.family).exact and traits(right.family).exact):
        return SqlType(family=Family.FLOAT)
    if traits(left.family).integer and traits(right.family).integer:
        return SqlType(family=Family.INTEGER)
    return None


def _decimal(what: str, left: SqlType, right: SqlType, precision: int, scale: int) -> Result:
    """A decimal result, or the problem when Spark would cut its scale."""
    spark_precision = precision + 1
    if spark_precision > MAX_PRECISION and scale > _SPARK_KEPT_SCALE:
        return (
            f"the {what} of {shown_type(left)} and {shown_type(right)} needs "
            f"{spark_precision} digits at scale {scale}; every engine keeps "
            f"{MAX_PRECISION} digits, and Spark would cut the scale"
        )
    return SqlType(family=Family.DECIMAL, precision=min(precision, MAX_PRECISION), scale=scale)


def sum_type(left: SqlType, right: SqlType) -> Result:
    """The type of ``left + right`` or ``left - right``."""
    simple = _float_or_integer(left, right)
    if simple is not None:
        return simple
    (lp, ls), (rp, rs) = _digits(left), _digits(right)
    scale = max(ls, rs)
    return _decimal("sum", left, right, max(lp - ls, rp - rs) + scale + 1, scale)


def product_type(left: SqlType, right: SqlType) -> Result:
    """The type of ``left * right``."""
    simple = _float_or_integer(left, right)
    if simple is not None:
        return simple
    (lp, ls), (rp, rs) = _digits(left), _digits(right)
    return _decimal("product", left, right, lp + rp, ls + rs)


def quotient_type(left: SqlType, right: SqlType) -> SqlType:
    """The type of ``left / right``: a float with a float, else a decimal cut toward zero.

    Its whole part has at most the dividend's whole digits and the divisor's decimals (a
    division by 0.01 multiplies by 100), so its precision is no wider than that needs: a
    precision of 38 would make Spark cut the scale of anything computed from it.
    """
    if not (traits(left.family).exact and traits(right.family).exact):
        return SqlType(family=Family.FLOAT)
    (lp, ls), (_, rs) = _digits(left), _digits(right)
    scale = max(QUOTIENT_SCALE, ls, rs)
    precision = min(lp - ls + rs + scale, MAX_PRECISION)
    return SqlType(family=Family.DECIMAL, precision=precision, scale=scale)


def common_type(left: SqlType, right: SqlType) -> SqlType | None:
    """The type both values are shown as where a node chooses between them, or None.

    Numbers meet as numbers (a decimal keeps the larger scale and the wider whole part);
    anything else only with its own family.
    """
    if not (traits(left.family).number and traits(right.family).number):
        return left if left.family == right.family else None
    simple = _float_or_integer(left, right)
    if simple is not None:
        return simple
    (lp, ls), (rp, rs) = _digits(left), _digits(right)
    scale = max(ls, rs)
    precision = min(max(lp - ls, rp - rs) + scale, MAX_PRECISION)
    return SqlType(family=Family.DECIMAL, precision=precision, scale=scale)


def comparable(left: SqlType, right: SqlType) -> bool:
    """Whether two values may be compared: numbers with numbers, else within one family."""
    return common_type(left, right) is not None
