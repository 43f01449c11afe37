"""A caller's filters checked against the dimensions they name, and typed.

Every dimension may be filtered on. A value is typed by its dimension (the type an expression
dimension declares, or the type its column's model declares): text, a number, a date, a
timestamp or a truth value, in its one spelling (``core/expression/constants.py``), later bound
as a parameter of that type. A value of another type is a malformed question naming its field
(``$.filters[0].value``), never echoing the value. The ordered comparisons (``lt``, ``le``,
``gt``, ``ge``, ``between``) need a dimension of an ordered type — a number, a date or a
timestamp, compared alike on every engine (text is not: PostgreSQL orders it by collation);
``is_null`` and ``is_not_null`` take any dimension. A dimension that lists ``values`` still
constrains every value a filter compares with to that list (``dimension_value_not_allowed``).

>>> from sutura.core.nouns.question import FilterBetween, FilterLt
>>> day = Dimension(name="shipped", column="l_shipdate", type=Family.DATE)
>>> checked_filter(0, FilterBetween(dimension="shipped", low="1994-01-01", high="1995-01-01"),
...     (day,))
ResolvedFilter(dimension='shipped', op=<FilterOp.BETWEEN: 'between'>, values=('1994-01-01', \
'1995-01-01'))
>>> checked_filter(0, FilterLt(dimension="shipped", value=24), (day,))
QuestionError(field='$.filters[0].value', problem='expected a date written YYYY-MM-DD')
"""

import decimal
import re
from enum import StrEnum
from typing import Final, assert_never

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.definitions.model import Dimension
from sutura.core.expression.constants import canonical_text, kind_for
from sutura.core.expression.nodes import ConstantKind
from sutura.core.expression.types import Family, traits
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.question import (
    Filter,
    FilterBetween,
    FilterEq,
    FilterGe,
    FilterGt,
    FilterIn,
    FilterIsNotNull,
    FilterIsNull,
    FilterLe,
    FilterLt,
    FilterNotIn,
    FilterValue,
    QuestionError,
)
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal

_DAY: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class FilterOp(StrEnum):
    """How a resolved filter compares a dimension with its values."""

    EQ = "eq"
    IN = "in"
    NOT_IN = "not_in"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"
    BETWEEN = "between"
    IS_NULL = "is_null"
    IS_NOT_NULL = "is_not_null"


class ResolvedFilter(Frozen, frozen=True):
    """A caller's filter on a permitted dimension, its values typed and in their one spelling
    (``between``: low, then high; the NULL tests: none)."""

    dimension: str
    op: FilterOp
    values: tuple[str, ...]


def ordered(op: FilterOp) -> bool:
    """Whether ``op`` compares by order (and so needs a number, a date or a timestamp)."""
    match op:
        case FilterOp.LT | FilterOp.LE | FilterOp.GT | FilterOp.GE | FilterOp.BETWEEN:
            return True
        case FilterOp.EQ | FilterOp.IN | FilterOp.NOT_IN | FilterOp.IS_NULL | FilterOp.IS_NOT_NULL:
            return False
        case _:
            assert_never(op)


def keeps_null(op: FilterOp) -> bool:
    """Whether a row whose dimension is NULL can pass ``op`` (``is_null`` alone): a dimension
    reached through relationships is then joined LEFT, so a row without a match is kept."""
    match op:
        case FilterOp.IS_NULL:
            return True
        case (
            FilterOp.EQ
            | FilterOp.IN
            | FilterOp.NOT_IN
            | FilterOp.LT
            | FilterOp.LE
            | FilterOp.GT
            | FilterOp.GE
            | FilterOp.BETWEEN
            | FilterOp.IS_NOT_NULL
        ):
            return False
        case _:
            assert_never(op)


def _given(item: Filter) -> tuple[FilterOp, tuple[tuple[str, FilterValue], ...]]:
    """The filter's op and each value it compares with, beside its field name."""
    match item:
        case FilterEq() | FilterLt() | FilterLe() | FilterGt() | FilterGe():
            return _one_value_op(item), (("value", item.value),)
        case FilterIn():
            return FilterOp.IN, tuple((f"values[{i}]", v) for i, v in enumerate(item.values))
        case FilterNotIn():
            return FilterOp.NOT_IN, tuple((f"values[{i}]", v) for i, v in enumerate(item.values))
        case FilterBetween():
            return FilterOp.BETWEEN, (("low", item.low), ("high", item.high))
        case FilterIsNull():
            return FilterOp.IS_NULL, ()
        case FilterIsNotNull():
            return FilterOp.IS_NOT_NULL, ()
        case _:
            assert_never(item)


def _one_value_op(item: FilterEq | FilterLt | FilterLe | FilterGt | FilterGe) -> FilterOp:
    match item:
        case FilterEq():
            return FilterOp.EQ
        case FilterLt():
            return FilterOp.LT
        case FilterLe():
            return FilterOp.LE
        case FilterGt():
            return FilterOp.GT
        case FilterGe():
            return FilterOp.GE
        case _:
            assert_never(item)


def given_values(item: Filter) -> tuple[str, ...]:
    """The values a filter compares with as the caller gave them, spelled as text, once each."""
    return tuple(dict.fromkeys(_spelled(v) for _, v in _given(item)[1]))


def _spelled(value: FilterValue) -> str:
    match value:
        case bool():
            return "true" if value else "false"
        case int() | str():
            return str(value)
        case _:
            assert_never(value)


def checked_filter(
    index: int, item: Filter, dimensions: tuple[Dimension, ...]
) -> ResolvedFilter | QuestionError | Refusal:
    """The filter at ``$.filters[index]`` on ``dimensions`` (the one dimension as each asked
    metric defines it: one reading, one type), typed, or why it is malformed or not allowed."""
    op, given = _given(item)
    family = dimensions[0].type
    field = f"$.filters[{index}]"
    if ordered(op) and (family is None or not traits(family).ordered):
        kind = "declares no type" if family is None else f"is {family.value}"
        problem = f"{op.value} compares numbers, dates and timestamps; this dimension {kind}"
        return QuestionError(field=f"{field}.op", problem=problem)
    texts: list[str] = []
    for name, value in given:
        typed = typed_value(value, family)
        if not is_successful(typed):
            return QuestionError(field=f"{field}.{name}", problem=typed.failure())
        texts.append(typed.unwrap())
    values = _values(op, texts, family)
    if isinstance(values, str):
        return QuestionError(field=f"{field}.high", problem=values)
    if any(v not in d.values for d in dimensions if d.values is not None for v in values):
        return refusal(RefusalCode.DIMENSION_VALUE_NOT_ALLOWED)
    return ResolvedFilter(dimension=item.dimension, op=op, values=values)


def _values(op: FilterOp, texts: list[str], family: Family | None) -> tuple[str, ...] | str:
    """The values as resolved (``in`` and ``not_in``: each once), or why ``between``'s high
    bound is wrong."""
    match op:
        case FilterOp.BETWEEN:
            if family is not None and _above(texts[0], texts[1], family):
                return "must not be below low"
            return tuple(texts)
        case FilterOp.IN | FilterOp.NOT_IN:
            return tuple(dict.fromkeys(texts))
        case (
            FilterOp.EQ
            | FilterOp.LT
            | FilterOp.LE
            | FilterOp.GT
            | FilterOp.GE
            | FilterOp.IS_NULL
            | FilterOp.IS_NOT_NULL
        ):
            return tuple(texts)
        case _:
            assert_never(op)


def typed_value(value: FilterValue, family: Family | None) -> Result[str, str]:
    """``value`` in the one spelling of ``family`` (text where the type is not declared), or
    why it is not a value of that type (never naming the value).

    >>> typed_value("0.050", Family.DECIMAL), typed_value(7, Family.INTEGER)
    (<Success: 0.050>, <Success: 7>)
    >>> typed_value("2024-01-31", Family.TIMESTAMP), typed_value(True, Family.TEXT)
    (<Success: 2024-01-31T00:00:00>, <Failure: expected text>)
    """
    kind = ConstantKind.TEXT if family is None else kind_for(family)
    match kind:
        case ConstantKind.BOOLEAN:
            return _truth(value)
        case ConstantKind.NUMBER:
            return _number(value)
        case ConstantKind.TIMESTAMP:
            return _instant(value)
        case ConstantKind.TEXT | ConstantKind.DATE | ConstantKind.INFERRED:
            return _spelled_as(kind, value)
        case _:
            assert_never(kind)


def _truth(value: FilterValue) -> Result[str, str]:
    match value:
        case bool():
            return Success("true" if value else "false")
        case int():
            return Failure(_wanted(ConstantKind.BOOLEAN))
        case str():
            return canonical_text(ConstantKind.BOOLEAN, value)
        case _:
            assert_never(value)


def _number(value: FilterValue) -> Result[str, str]:
    match value:
        case bool():
            return Failure(_wanted(ConstantKind.NUMBER))
        case int() | str():
            return canonical_text(ConstantKind.NUMBER, str(value))
        case _:
            assert_never(value)


def _instant(value: FilterValue) -> Result[str, str]:
    match value:
        case bool() | int():
            return Failure(_wanted(ConstantKind.TIMESTAMP))
        case str():
            midnight = f"{value} 00:00" if _DAY.fullmatch(value) else value  # a day alone
            return canonical_text(ConstantKind.TIMESTAMP, midnight)
        case _:
            assert_never(value)


def _spelled_as(kind: ConstantKind, value: FilterValue) -> Result[str, str]:
    match value:
        case bool() | int():
            return Failure(_wanted(kind))
        case str():
            return canonical_text(kind, value)
        case _:
            assert_never(value)


def _wanted(kind: ConstantKind) -> str:
    match kind:
        case ConstantKind.TEXT | ConstantKind.INFERRED:
            return "expected text"
        case ConstantKind.NUMBER:
            return 'expected a number (a decimal written as text, such as "0.05")'
        case ConstantKind.DATE:
            return "expected a date written YYYY-MM-DD"
        case ConstantKind.TIMESTAMP:
            return "expected a timestamp written YYYY-MM-DD HH:MM[:SS], or a date"
        case ConstantKind.BOOLEAN:
            return "expected true or false"
        case _:
            assert_never(kind)


def _above(low: str, high: str, family: Family) -> bool:
    """Whether ``low`` is above ``high`` (both in the one spelling of the ordered ``family``:
    numbers compared exactly, days and instants as their ISO text, which sorts as they do)."""
    if traits(family).number:
        return decimal.Decimal(low) > decimal.Decimal(high)
    return low > high
