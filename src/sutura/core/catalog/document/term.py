"""A written measure term or required filter to its value, in the older form where one fits.

The forms every catalog could always write (``{aggregate, column}``, ``{count_if}``, the four
required filters) keep their own values, so their meaning, their digest and their SQL stay
what they were. A term or filter written in the expression vocabulary that one of those forms
can write is read as that form: ``{aggregate: sum, of: {column: amount}}`` is
``{aggregate: sum, column: amount}``, ``{is_true: {column: paid}}`` is the older ``is_true``.
What needs the column's type to decide (``equals`` with a bare constant) is settled with the
whole catalog (``settle_metric`` in :mod:`sutura.core.catalog.checks.expressions`).
"""

import decimal
import re
from typing import Final, assert_never

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.expression import build_expression, build_predicate
from sutura.core.catalog.document.written import WrittenColumnValue, WrittenPredicate, WrittenTerm
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    RequiredFilter,
    Term,
)
from sutura.core.expression.nodes import (
    Arithmetic,
    Between,
    Buckets,
    Case,
    Check,
    Coalesce,
    Column,
    Compare,
    Constant,
    DatePart,
    Expr,
    Junction,
    Member,
    Negate,
    Not,
    Predicate,
    StartsWith,
    Test,
)

_FRACTION: Final = re.compile(r"0\.[0-9]*[1-9][0-9]*")


def build_term(check: Checker, key: str, written: WrittenTerm) -> Term:
    """The term written at ``key``."""
    others = (written.aggregate, written.column, written.of, written.where, written.fraction)
    aggregate_form = any(other is not None for other in others)
    form = check.one_of(
        key, {"aggregate": aggregate_form, "count_if": written.count_if is not None}
    )
    if form == "count_if" and written.count_if is not None:
        return CountIfTerm(column=check.identifier(f"{key}.count_if", written.count_if))
    if written.aggregate is None:
        check.fail(f"{key}.aggregate", "missing required key (a term with column needs aggregate)")
    aggregate = check.choice(f"{key}.aggregate", written.aggregate, Aggregate)
    of: Expr | None
    if written.column is not None:
        if written.of is not None:
            check.fail(f"{key}.column", "write either column or of, not both")
        of = Column(name=check.identifier(f"{key}.column", written.column))
    else:
        of = None if written.of is None else build_expression(check, f"{key}.of", written.of)
    where = None if written.where is None else build_predicate(check, f"{key}.where", written.where)
    fraction = _fraction(check, f"{key}.fraction", aggregate, written.fraction)
    if of is None and not _counts_rows(aggregate):
        check.fail(
            f"{key}.of", f"missing required key ({aggregate.value} needs of, or the older column)"
        )
    older = _older_term(aggregate, of, where)
    if older is not None:
        return older
    return ExpressionTerm(aggregate=aggregate, of=of, where=where, fraction=fraction)


def _counts_rows(aggregate: Aggregate) -> bool:
    """Whether ``aggregate`` may go without ``of`` (``count`` alone counts rows)."""
    match aggregate:
        case Aggregate.COUNT:
            return True
        case (
            Aggregate.SUM
            | Aggregate.COUNT_DISTINCT
            | Aggregate.MIN
            | Aggregate.MAX
            | Aggregate.AVG
            | Aggregate.MEDIAN
            | Aggregate.PERCENTILE
        ):
            return False
        case _:
            assert_never(aggregate)


def _fraction(check: Checker, key: str, aggregate: Aggregate, written: str | None) -> str | None:
    """``percentile``'s fraction, without trailing zeros; every other aggregate has none."""
    match aggregate:
        case Aggregate.PERCENTILE:
            if written is None:
                check.fail(key, "missing required key (percentile needs a fraction, such as 0.9)")
            if _FRACTION.fullmatch(written) is None:
                check.fail(key, "expected a decimal between 0 and 1, such as 0.9")
            return str(decimal.Decimal(written).normalize())
        case (
            Aggregate.SUM
            | Aggregate.COUNT
            | Aggregate.COUNT_DISTINCT
            | Aggregate.MIN
            | Aggregate.MAX
            | Aggregate.AVG
            | Aggregate.MEDIAN
        ):
            if written is not None:
                check.fail(key, "only percentile has a fraction")
            return None
        case _:
            assert_never(aggregate)


def _older_term(aggregate: Aggregate, of: Expr | None, where: Predicate | None) -> Term | None:
    """The same term in an older form, or None when no older form writes it."""
    own = None if of is None else own_column(of)
    match aggregate:
        case (
            Aggregate.SUM | Aggregate.COUNT_DISTINCT | Aggregate.MIN | Aggregate.MAX | Aggregate.AVG
        ):
            older = where is None and own is not None
            return AggregateTerm(aggregate=aggregate, column=own) if older and own else None
        case Aggregate.COUNT:
            if where is None and own is not None:
                return AggregateTerm(aggregate=aggregate, column=own)
            tested = None if where is None or of is not None else tested_column(where)
            return CountIfTerm(column=tested[1]) if tested and _is_true(tested[0]) else None
        case Aggregate.MEDIAN | Aggregate.PERCENTILE:
            return None
        case _:
            assert_never(aggregate)


def own_column(expr: Expr) -> str | None:
    """The name of a column of the metric's own model, when ``expr`` is just that column."""
    match expr:
        case Column():
            return None if expr.via else expr.name
        case Constant() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
            return None
        case _:
            assert_never(expr)


def tested_column(predicate: Predicate) -> tuple[Check, str] | None:
    """The test and the own-model column, when ``predicate`` only tests one column."""
    match predicate:
        case Test():
            own = own_column(predicate.of)
            return None if own is None else (predicate.check, own)
        case Compare() | Between() | Member() | StartsWith() | Junction() | Not():
            return None
        case _:
            assert_never(predicate)


def _is_true(check: Check) -> bool:
    match check:
        case Check.IS_TRUE:
            return True
        case Check.IS_NULL | Check.IS_NOT_NULL:
            return False
        case _:
            assert_never(check)


def build_filter(check: Checker, key: str, written: WrittenPredicate) -> RequiredFilter:
    """The required filter written at ``key``."""
    if isinstance(written.equals, WrittenColumnValue) and _alone(written):
        column = check.identifier(f"{key}.equals.column", written.equals.column)
        return FilterEquals(column=column, value=written.equals.value)
    if isinstance(written.not_equals, WrittenColumnValue) and _alone(written):
        column = check.identifier(f"{key}.not_equals.column", written.not_equals.column)
        return FilterNotEquals(column=column, value=written.not_equals.value)
    predicate = build_predicate(check, key, written)
    tested = tested_column(predicate)
    if tested is None:
        return FilterPredicate(predicate=predicate)
    match tested[0]:
        case Check.IS_TRUE:
            return FilterIsTrue(column=tested[1])
        case Check.IS_NOT_NULL:
            return FilterIsNotNull(column=tested[1])
        case Check.IS_NULL:
            return FilterPredicate(predicate=predicate)
        case _:
            assert_never(tested[0])


def _alone(written: WrittenPredicate) -> bool:
    """Whether the predicate writes one key (else building it names the problem)."""
    fields = written.__struct_fields__
    return sum(getattr(written, field) is not None for field in fields) == 1
