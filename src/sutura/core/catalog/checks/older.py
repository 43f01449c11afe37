"""The older ``equals`` and ``not_equals`` forms a settled predicate can be read as.

``{equals: [{column: status}, shipped]}`` on a text column (or one declared without a type)
compares the column with text, exactly as ``{equals: {column: status, value: shipped}}`` does:
it is read as that form, so its meaning, its SQL and its digest are the ones that form always
had. Deciding needs the column's declared type, so it happens with the whole catalog.
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
from sutura.core.expression.types import SqlType, traits


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
