"""The SQL of arithmetic every engine computes alike: a quotient by integer division (cut
toward zero, no engine's rounding), decimal and integer casts, the numbers the compiler writes
itself (powers of ten, zero: never an author's constant), and parentheses where sqlglot would
write an operation as built."""

from collections.abc import Callable
from typing import Final, assert_never

from sqlglot import exp

from sutura.core.expression.types import MAX_PRECISION
from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.parts import sql_type


def paren(value: exp.Expr) -> exp.Expr:
    """``value``, parenthesised when it is an operation (sqlglot writes the tree as built)."""
    return exp.Paren(this=value) if isinstance(value, exp.Binary) else value


def number(text: str) -> exp.Expr:
    """A number the compiler writes itself (a power of ten, zero), never an author's."""
    return exp.Literal.number(text)


def integer(value: exp.Expr) -> exp.Expr:
    """``CAST(value AS INT)`` (PostgreSQL extracts a date part as a numeric)."""
    return exp.Cast(this=value, to=sql_type("INT"))


def cast_decimal(value: exp.Expr, precision: int, scale: int) -> exp.Expr:
    """``CAST(value AS DECIMAL(precision, scale))``: one scale on every engine."""
    return exp.Cast(this=value, to=sql_type(f"DECIMAL({precision}, {scale})"))


WIDE_INTEGER: Final = f"DECIMAL({MAX_PRECISION}, 0)"
"""The type integer arithmetic computes in on every engine: 38 whole digits, past which each
engine raises an error (DuckDB's and Spark's decimal arithmetic, PostgreSQL's cast to it),
never a column's own ``INTEGER`` or ``BIGINT``, which would overflow at 2^31 or 2^63."""


NARROW_DECIMAL: Final = 18
"""The most digits DuckDB holds a decimal in as a 64-bit integer, in which it multiplies two
such decimals (or one and an ``INTEGER``), raising an error where the product passes them."""


def widened(value: exp.Expr) -> exp.Expr:
    """``CAST(value AS DECIMAL(38, 0))``: an integer operand, widened before it computes."""
    return exp.Cast(this=value, to=sql_type(WIDE_INTEGER))


def wide_step(dialect: Dialect, step: exp.Expr) -> exp.Expr:
    """One step of integer arithmetic over widened operands, bounded at 38 digits alike.

    DuckDB and Spark compute ``DECIMAL(38, 0)`` with ``DECIMAL(38, 0)`` in that very type and
    raise an error past it; PostgreSQL's ``NUMERIC`` has no bound, so each step is cast back
    to ``DECIMAL(38, 0)``, which raises the error there too (``numeric field overflow``).
    """
    match dialect:
        case Dialect.POSTGRES:
            return widened(step)
        case Dialect.DUCKDB | Dialect.SPARK:
            return exp.Paren(this=step)
        case _:
            assert_never(dialect)


def quotient_sql(
    dialect: Dialect,
    left: Callable[[], exp.Expr],
    right: Callable[[], exp.Expr],
    result: tuple[int, int],
    scales: tuple[int, int],
) -> exp.Expr:
    """``left / right`` cut toward zero at ``scale`` places, by integer division.

    ``left`` and ``right`` build their operand (each call binds its constants again, so an
    operand written twice is built twice, in the order the statement reads them).

    The dividend is first multiplied by ``10^scale`` (exact: the quotient's scale is at least
    the dividend's); PostgreSQL's ``DIV`` divides decimals exactly and cuts toward zero;
    DuckDB divides 128-bit integers, so both sides are first scaled to integers. Spark's
    ``DIV`` answers a ``BIGINT`` and wraps past it, with no error even in ANSI mode, so Spark
    takes the dividend less its remainder (which has the dividend's sign), an exact multiple
    of the divisor, and divides that: a decimal quotient that is a whole number is exact, or
    overflows with an error. ``result`` is the quotient's precision and scale, ``scales`` the
    operands' (0 for an integer).

    The scaling is done in a type wide enough for it, never the operand's own: a ``BIGINT``
    past 9.2 × 10^12, or a ``DECIMAL(17,2)`` near its top, times ``10^6`` overflows its own
    type (DuckDB keeps a decimal times a literal in 18 digits), so DuckDB scales each side as a
    ``DECIMAL(38, its scale)`` and PostgreSQL the dividend as a ``NUMERIC``, which has no bound.
    """
    precision, scale = result
    left_scale, right_scale = scales
    zero = number("0")
    match dialect:
        case Dialect.DUCKDB:
            hugeint = sql_type("HUGEINT", "duckdb")
            dividend: exp.Expr = exp.Cast(
                this=exp.Mul(
                    this=cast_decimal(left(), MAX_PRECISION, left_scale),
                    expression=number(str(10 ** (scale + right_scale))),
                ),
                to=hugeint,
            )
            divisor = exp.Cast(
                this=exp.Mul(
                    this=cast_decimal(right(), MAX_PRECISION, right_scale),
                    expression=number(str(10**right_scale)),
                ),
                to=hugeint,
            )
            whole: exp.Expr = exp.IntDiv(
                this=dividend, expression=exp.Nullif(this=divisor, expression=zero)
            )
        case Dialect.POSTGRES:
            widened = exp.Cast(this=left(), to=sql_type("NUMERIC", "postgres"))
            dividend = exp.Mul(this=widened, expression=number(str(10**scale)))
            whole = exp.IntDiv(
                this=exp.Paren(this=dividend), expression=exp.Nullif(this=right(), expression=zero)
            )
        case Dialect.SPARK:

            def scaled_left() -> exp.Expr:
                widened = cast_decimal(left(), MAX_PRECISION, left_scale)
                return exp.Paren(this=exp.Mul(this=widened, expression=number(str(10**scale))))

            # Built in the order the statement reads them: dividend, dividend, divisor, divisor.
            dividend, again = scaled_left(), scaled_left()
            by = exp.Nullif(this=right(), expression=zero)
            remainder = exp.Mod(this=again, expression=by)
            multiple = exp.Paren(this=exp.Sub(this=dividend, expression=exp.Paren(this=remainder)))
            whole = exp.Div(
                this=multiple, expression=exp.Nullif(this=right(), expression=number("0"))
            )
        case _:
            assert_never(dialect)
    unit = number("0." + "0" * (scale - 1) + "1") if scale else number("1")
    scaled = exp.Mul(this=cast_decimal(whole, MAX_PRECISION, 0), expression=unit)
    return cast_decimal(scaled, precision, scale)
