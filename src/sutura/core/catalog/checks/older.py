"""The older ``equals`` and ``not_equals`` forms a settled predicate can be read as.

``{equals: [{column: status}, shipped]}`` on a text column (or one declared without a type)
compares the column with text, exactly as ``{equals: {column: status, value: shipped}}`` does:
it is read as that form, so its meaning, its SQL and its digest are the ones that form always
had. Deciding needs the column's declared type, so it happens with the whole catalog.

An older form on a column that declares another type (a number, a date, a truth value) binds
its value as text, which each engine converts to the column's type its own way: DuckDB rounds
``7.5`` into an INTEGER and ``0.005`` into a DECIMAL(12,2), PostgreSQL refuses the one and
compares the other exactly. So its value must be one of the column's values, written as a
constant of that type (:func:`older_value_problem`); then every engine reads the same value.

>>> from sutura.core.expression.types import Family
>>> money = SqlType(family=Family.DECIMAL, precision=12, scale=2)
>>> older_value_problem("10.005", money)
'10.005 has 3 decimal places; the column is decimal(12,2), so no value of it equals it'
>>> older_value_problem("10.5", money) is None, older_value_problem("x", None) is None
(True, True)
>>> older_value_problem("7.0", SqlType(family=Family.INTEGER))
'7.0 is not an integer, and the column is one'
"""

from typing import assert_never

from returns.pipeline import is_successful

from sutura.core.catalog.document.term import own_column
from sutura.core.definitions.model import (
    FilterEquals,
    FilterNotEquals,
    FilterPredicate,
    RequiredFilter,
)
from sutura.core.expression.constants import canonical_text, kind_for
from sutura.core.expression.nodes import (
    Arithmetic,
    Between,
    Buckets,
    Case,
    Coalesce,
    Column,
    Compare,
    Comparison,
    Constant,
    ConstantKind,
    DatePart,
    Expr,
    Junction,
    Member,
    Negate,
    Not,
    StartsWith,
    Test,
)
from sutura.core.expression.problem import ColumnTypes
from sutura.core.expression.types import Family, SqlType, shown_type, traits


def older_filter(rule: FilterPredicate, columns: ColumnTypes) -> RequiredFilter | None:
    """The older ``equals``/``not_equals`` form of a column compared with text, if it is one."""
    predicate = rule.predicate
    match predicate:
        case Compare():
            return _older_comparison(predicate, columns)
        case Between() | Member() | Test() | StartsWith() | Junction() | Not():
            return None
        case _:
            assert_never(predicate)


def _older_comparison(predicate: Compare, columns: ColumnTypes) -> RequiredFilter | None:
    sides = _column_and_text(predicate.left, predicate.right) or _column_and_text(
        predicate.right, predicate.left
    )
    if sides is None:
        return None
    name, text = sides
    found = columns(Column(name=name))
    if not is_successful(found) or not _text_or_untyped(found.unwrap()):
        return None
    match predicate.op:
        case Comparison.EQUALS:
            return FilterEquals(column=name, value=text)
        case Comparison.NOT_EQUALS:
            return FilterNotEquals(column=name, value=text)
        case (
            Comparison.LESS_THAN
            | Comparison.AT_MOST
            | Comparison.GREATER_THAN
            | Comparison.AT_LEAST
        ):
            return None
        case _:
            assert_never(predicate.op)


def _column_and_text(column: Expr, constant: Expr) -> tuple[str, str] | None:
    """(name, text) when ``column`` is an own-model column and ``constant`` text, bare or not."""
    name = own_column(column)
    match constant:
        case Constant():
            text = _text_of(constant)
            return None if name is None or text is None else (name, text)
        case Column() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
            return None
        case _:
            assert_never(constant)


def _text_of(constant: Constant) -> str | None:
    match constant.kind:
        case ConstantKind.TEXT | ConstantKind.INFERRED:
            return None if "\x00" in constant.text else constant.text
        case (
            ConstantKind.NUMBER | ConstantKind.DATE | ConstantKind.TIMESTAMP | ConstantKind.BOOLEAN
        ):
            return None
        case _:
            assert_never(constant.kind)


def _text_or_untyped(declared: SqlType | None) -> bool:
    """Whether a column of this type compares with text the older way (bound as text)."""
    return declared is None or traits(declared.family).text


def older_value_problem(value: str, declared: SqlType | None) -> str | None:
    """Why ``value`` is not a value of a column of type ``declared``, if it is not one (text
    and a column declaring no type take any value, as they always did)."""
    if _text_or_untyped(declared) or declared is None:
        return None
    written = canonical_text(kind_for(declared.family), value)
    if not is_successful(written):
        return f"{written.failure()}, as the column is {shown_type(declared)}"
    match declared.family:
        case Family.INTEGER:
            return None if "." not in value else f"{value} is not an integer, and the column is one"
        case Family.DECIMAL:
            return _decimal_problem(value, declared)
        case Family.FLOAT | Family.DATE | Family.TIMESTAMP | Family.BOOLEAN | Family.TEXT:
            return None
        case _:
            assert_never(declared.family)


def _decimal_problem(value: str, declared: SqlType) -> str | None:
    whole, _, fraction = value.lstrip("-").partition(".")
    if declared.scale is not None and len(fraction) > declared.scale:
        places = f"{value} has {len(fraction)} decimal places"
        return f"{places}; the column is {shown_type(declared)}, so no value of it equals it"
    if declared.precision is not None and declared.scale is not None:
        room = declared.precision - declared.scale
        if len(whole.lstrip("0")) > room:
            return f"{value} has more whole digits than the column's {shown_type(declared)} holds"
    return None
