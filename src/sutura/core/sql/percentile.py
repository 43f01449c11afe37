"""A continuous percentile from ranked values, interpolated exactly, the same on every engine.

With ``n`` values in a group and the fraction ``p = a / 10^k``, the position ``(n - 1) p`` has
the whole part ``((n - 1) a) // 10^k`` and the remainder ``m = ((n - 1) a) % 10^k``. The
percentile is ``lower + (upper - lower) * m / 10^k``, where ``lower`` and ``upper`` are the
values ranked at the whole part and at the next position (the same value when ``m`` is 0). The
positions and ``m`` are integer arithmetic on every engine; ``m / 10^k`` is a decimal of scale
``k``, so a decimal value of scale ``s`` gives a decimal of scale ``s + k`` exactly (a float
value, a float computed in one order of operations). ``a``, ``10^k`` and ``1 / 10^k`` come from
the author's fraction and are bound like every constant.

The rows are ranked by :mod:`sutura.core.sql.ranked`: the term's value is an inner column, with
its rank in its group (``<column>.rank``, NULLs last) and its group's count of values
(``<column>.count``) beside it.
"""

from decimal import Decimal

from sqlglot import exp

from sutura.core.definitions.model import ExpressionTerm
from sutura.core.expression.nodes import Column
from sutura.core.expression.types import MAX_PRECISION, traits
from sutura.core.nouns.dialect import traits_of
from sutura.core.sql.arithmetic import NARROW_DECIMAL, cast_decimal, paren
from sutura.core.sql.expression import ExpressionSql
from sutura.core.sql.parts import sql_type

MEDIAN = "0.5"
"""The fraction of ``median``."""


def percentile_sql(term: ExpressionTerm, sql: ExpressionSql) -> exp.Expr:
    """The percentile of ``term``'s inner column (``of`` is a column of the ranked rows)."""
    if term.of is None:
        raise AssertionError("a percentile reads a value")
    kind = sql.type_of(term.of)
    read = sql.value(term.of)
    name = read.name
    rank = sql.value(Column(name=f"{name}.rank"))
    count = sql.value(Column(name=f"{name}.count"))
    fraction = Decimal(term.fraction or MEDIAN)
    digits = -int(fraction.as_tuple().exponent)
    parts = _Parts(sql, rank, count, read, int(fraction.scaleb(digits)), 10**digits)
    # Built in the order it is written: lower + (upper - lower) * fraction-between.
    lower, upper, again, remainder = (
        parts.pick(False),
        parts.pick(True),
        parts.pick(False),
        parts.remainder(),
    )
    spread: exp.Expr = exp.Sub(this=upper, expression=again)
    between: exp.Expr
    if not traits(kind.family).exact:
        between = exp.Div(
            this=exp.Cast(this=remainder, to=sql_type("DOUBLE")),
            expression=exp.Cast(this=sql.bind(parts.whole), to=sql_type("DOUBLE")),
        )
        return exp.Add(
            this=lower,
            expression=exp.Mul(this=exp.Paren(this=spread), expression=exp.Paren(this=between)),
        )
    between = exp.Mul(
        this=exp.Cast(this=remainder, to=sql_type(f"DECIMAL({digits}, 0)")),
        expression=sql.bind(Decimal(1).scaleb(-digits)),
    )
    scale = (kind.scale or 0) + digits
    needed = (kind.precision or MAX_PRECISION) + 1 + digits
    # DuckDB multiplies decimals of at most 18 digits in 18 digits, raising an error past them:
    # where the step needs more, the gap is read as a DECIMAL(38, its scale) first.
    narrow = traits_of(sql.dialect).narrow_decimal_products
    if narrow and kind.scale is not None and needed > NARROW_DECIMAL:
        spread = cast_decimal(exp.Paren(this=spread), MAX_PRECISION, kind.scale)
    step: exp.Expr = exp.Mul(this=paren(spread), expression=exp.Paren(this=between))
    # On Spark the sum with ``lower`` is one digit wider than the step, and past 38 digits it
    # would round the scale: the step is kept in the digits its value needs, the gap's whole
    # digits (one more than the value's) at the result's scale.
    rounds = traits_of(sql.dialect).rounded_wide_decimals
    if rounds and kind.scale is not None and needed <= MAX_PRECISION:
        step = exp.Cast(this=step, to=sql_type(f"DECIMAL({needed}, {scale})"))
    value = exp.Add(this=lower, expression=step)
    return exp.Cast(this=value, to=sql_type(f"DECIMAL({MAX_PRECISION}, {scale})"))


class _Parts:
    """The pieces of one percentile, each built afresh (its constants bound where it is)."""

    def __init__(
        self,
        sql: ExpressionSql,
        rank: exp.Expr,
        count: exp.Expr,
        value: exp.Expr,
        numerator: int,
        whole: int,
    ) -> None:
        self._sql = sql
        self._rank = rank
        self._count = count
        self._value = value
        self._numerator = numerator
        self.whole = whole

    def _scaled(self) -> exp.Expr:
        """``(n - 1) * a``."""
        before = exp.Sub(this=self._count.copy(), expression=exp.Literal.number(1))
        return exp.Mul(this=exp.Paren(this=before), expression=self._sql.bind(self._numerator))

    def pick(self, upper: bool) -> exp.Expr:
        """``MIN(CASE WHEN rank = position THEN value END)`` at the lower or upper position."""
        scaled = self._scaled()
        if upper:  # the ceiling: (x + 10^k - 1) // 10^k
            scaled = exp.Sub(
                this=exp.Add(this=scaled, expression=self._sql.bind(self.whole)),
                expression=exp.Literal.number(1),
            )
        position = exp.Add(
            this=exp.IntDiv(this=exp.Paren(this=scaled), expression=self._sql.bind(self.whole)),
            expression=exp.Literal.number(1),
        )
        picked = exp.Case().when(
            exp.EQ(this=self._rank.copy(), expression=exp.Paren(this=position)),
            self._value.copy(),
            copy=False,
        )
        return exp.Min(this=picked)

    def remainder(self) -> exp.Expr:
        """``MAX(MOD((n - 1) * a, 10^k))``: the same in every row of a group (a function,
        since PostgreSQL's driver reads a ``%`` in the statement as a placeholder)."""
        return exp.Max(
            this=exp.Anonymous(this="MOD", expressions=[self._scaled(), self._sql.bind(self.whole)])
        )
