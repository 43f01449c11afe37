"""The type rules of each node, applied down a tree (the checks' inner part).

Every function takes the key path of the node it checks (relative to the tree's own key) and
stops at the first problem with :func:`~sutura.core.expression.problem.refuse`. A bare constant
takes the type of the first operand beside it that is not bare, or the type its position
expects (a number in arithmetic, text in ``starts_with``).
"""

from typing import assert_never

from returns.pipeline import is_successful

from sutura.core.expression.arithmetic import common_type, product_type, quotient_type, sum_type
from sutura.core.expression.constants import (
    canonical_text,
    constant_type,
    kind_for,
    number_value,
)
from sutura.core.expression.nodes import (
    Arithmetic,
    ArithmeticOp,
    Between,
    Branch,
    Buckets,
    Case,
    Check,
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
    Part,
    Predicate,
    StartsWith,
    Test,
)
from sutura.core.expression.problem import ColumnTypes, Typed, at, refuse
from sutura.core.expression.types import Family, SqlType, shown_type, traits
from sutura.core.text.escape import escape_text

_NUMBER = SqlType(family=Family.INTEGER)  # what a bare constant in arithmetic is read as
_TEXT = SqlType(family=Family.TEXT)


def typed_expression(
    expr: Expr, columns: ColumnTypes, path: str, expected: SqlType | None
) -> Typed:
    """``expr`` with its bare constants typed, and its result type."""
    match expr:
        case Column():
            return _column(expr, columns, path)
        case Constant():
            return _constant(expr, path, expected)
        case Arithmetic():
            return _arithmetic(expr, columns, path)
        case Negate():
            of = _number(expr.of, columns, at(path, "negate"))
            return Typed(Negate(of=of.expr), of.type)
        case Coalesce():
            keys = [at(path, f"coalesce[{i}]") for i in range(len(expr.of))]
            chosen = _chosen(expr.of, keys, columns, expected, "coalesce")
            return Typed(Coalesce(of=tuple(t.expr for t in chosen[0])), chosen[1])
        case Case():
            return _case(expr, columns, path, expected)
        case DatePart():
            return _part(expr, columns, path)
        case Buckets():
            return _buckets(expr, columns, path)
        case _:
            assert_never(expr)


def _column(column: Column, columns: ColumnTypes, path: str) -> Typed:
    found = columns(column)
    if not is_successful(found):
        key, problem = found.failure()
        refuse(at(path, key), problem)
    declared = found.unwrap()
    if declared is None:
        refuse(
            at(path, "column"),
            f"the column {_quoted(column.name)} declares no type; declare it in its model to "
            "compute with it",
        )
    return Typed(column, declared)


def _quoted(name: str) -> str:
    shown = escape_text(name[:80]).replace("'", "\\'")
    return f"'{shown}{'…' if len(name) > 80 else ''}'"


def _constant(constant: Constant, path: str, expected: SqlType | None) -> Typed:
    settled = _settled(constant, path, expected)
    return Typed(settled, constant_type(settled))


def _settled(constant: Constant, path: str, expected: SqlType | None) -> Constant:
    """``constant`` with its kind settled (a bare one takes ``expected``'s) and its text in
    the one spelling of its kind."""
    match constant.kind:
        case ConstantKind.INFERRED:
            if expected is None:
                refuse(
                    path,
                    "a bare value here has no operand beside it to take its type from; write "
                    "{number: …}, {text: …}, {date: …}, {timestamp: …} or {boolean: …}",
                )
            kind = kind_for(expected.family)
            key = path
        case (
            ConstantKind.NUMBER
            | ConstantKind.TEXT
            | ConstantKind.DATE
            | ConstantKind.TIMESTAMP
            | ConstantKind.BOOLEAN
        ):
            kind = constant.kind
            key = at(path, kind.value)
        case _:
            assert_never(constant.kind)
    spelled = canonical_text(kind, constant.text)
    if not is_successful(spelled):
        refuse(key, spelled.failure())
    return Constant(kind=kind, text=spelled.unwrap())


def is_bare(expr: Expr) -> bool:
    """Whether ``expr`` is a constant written without its kind."""
    match expr:
        case Constant():
            match expr.kind:
                case ConstantKind.INFERRED:
                    return True
                case (
                    ConstantKind.NUMBER
                    | ConstantKind.TEXT
                    | ConstantKind.DATE
                    | ConstantKind.TIMESTAMP
                    | ConstantKind.BOOLEAN
                ):
                    return False
                case _:
                    assert_never(expr.kind)
        case Column() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
            return False
        case _:
            assert_never(expr)


def siblings(
    items: tuple[Expr, ...], keys: list[str], columns: ColumnTypes, expected: SqlType | None
) -> list[Typed]:
    """Each of ``items`` typed; a bare one takes the first other's type, else ``expected``."""
    typed: dict[int, Typed] = {
        i: typed_expression(item, columns, keys[i], None)
        for i, item in enumerate(items)
        if not is_bare(item)
    }
    hint = next(iter(typed.values())).type if typed else expected
    for i, item in enumerate(items):
        if i not in typed:
            typed[i] = typed_expression(item, columns, keys[i], hint)
    return [typed[i] for i in range(len(items))]


def _number(expr: Expr, columns: ColumnTypes, path: str) -> Typed:
    typed = typed_expression(expr, columns, path, _NUMBER)
    if not traits(typed.type.family).number:
        refuse(path, f"expected a number, but this is {shown_type(typed.type)}")
    if (
        traits(typed.type.family).exact
        and not traits(typed.type.family).integer
        and typed.type.scale is None
    ):
        refuse(
            path,
            "this decimal's scale is not declared; declare its column as decimal(p,s) to "
            "compute with it",
        )
    return typed


def _arithmetic(expr: Arithmetic, columns: ColumnTypes, path: str) -> Typed:
    keys = [at(path, f"{expr.op.value}[{i}]") for i in range(len(expr.operands))]
    operands = [_number(item, columns, key) for item, key in zip(expr.operands, keys, strict=True)]
    result = operands[0].type
    for operand in operands[1:]:
        match expr.op:
            case ArithmeticOp.ADD | ArithmeticOp.SUBTRACT:
                step = sum_type(result, operand.type)
            case ArithmeticOp.MULTIPLY:
                step = product_type(result, operand.type)
            case ArithmeticOp.DIVIDE:
                step = quotient_type(result, operand.type)
            case _:
                assert_never(expr.op)
        if isinstance(step, str):
            refuse(path, step)
        result = step
    return Typed(Arithmetic(op=expr.op, operands=tuple(o.expr for o in operands)), result)


def _chosen(
    items: tuple[Expr, ...],
    keys: list[str],
    columns: ColumnTypes,
    expected: SqlType | None,
    what: str,
) -> tuple[list[Typed], SqlType]:
    """Values one node chooses between, and the type they are all shown as."""
    typed = siblings(items, keys, columns, expected)
    common = typed[0].type
    for item, key in zip(typed[1:], keys[1:], strict=True):
        met = common_type(common, item.type)
        if met is None:
            refuse(
                key,
                f"the values of {what} must be of one type, but this is "
                f"{shown_type(item.type)} and another is {shown_type(common)}",
            )
        common = met
    return typed, common


def _case(expr: Case, columns: ColumnTypes, path: str, expected: SqlType | None) -> Typed:
    count = len(expr.branches)
    whens = [
        typed_predicate(b.when, columns, at(path, f"case[{i}].when"))
        for i, b in enumerate(expr.branches)
    ]
    keys = [at(path, f"case[{i}].then") for i in range(count)] + [at(path, f"case[{count}].else")]
    values = (*(b.then for b in expr.branches), expr.otherwise)
    typed, common = _chosen(values, keys, columns, expected, "case")
    branches = tuple(
        Branch(when=when, then=value.expr) for when, value in zip(whens, typed, strict=False)
    )
    return Typed(Case(branches=branches, otherwise=typed[-1].expr), common)


def _part(expr: DatePart, columns: ColumnTypes, path: str) -> Typed:
    key = at(path, expr.part.value)
    of = typed_expression(expr.of, columns, key, None)
    family = traits(of.type.family)
    if not family.temporal:
        refuse(key, f"expected a date or a timestamp, but this is {shown_type(of.type)}")
    part = expr.part
    match part:
        case Part.HOUR_OF_DAY:
            if not family.clock:
                refuse(key, "a date has no hour; hour_of_day reads a timestamp")
            result = Family.INTEGER
        case Part.YEAR | Part.MONTH_OF_YEAR | Part.ISO_WEEK | Part.DAY_OF_WEEK | Part.DAY_OF_MONTH:
            result = Family.INTEGER
        case Part.QUARTER | Part.MONTH | Part.DATE_OF:
            result = Family.DATE
        case _:
            assert_never(part)
    return Typed(DatePart(part=part, of=of.expr), SqlType(family=result))


def _buckets(expr: Buckets, columns: ColumnTypes, path: str) -> Typed:
    of = _number(expr.of, columns, at(path, "buckets.of"))
    edges: list[Constant] = []
    for i, edge in enumerate(expr.edges):
        key = at(path, f"buckets.edges[{i}]")
        settled = _settled(edge, key, _NUMBER)
        if not traits(constant_type(settled).family).number:
            refuse(key, "expected a number")
        if edges and number_value(settled) <= number_value(edges[-1]):
            refuse(key, "each edge must be greater than the one before it")
        edges.append(settled)
    if len(expr.labels) != len(edges) + 1:
        refuse(
            at(path, "buckets.labels"),
            f"expected {len(edges) + 1} labels for {len(edges)} edges: one below the first "
            "edge, one between each two, one from the last edge up",
        )
    for i, label in enumerate(expr.labels):
        if not is_successful(canonical_text(ConstantKind.TEXT, label)):
            refuse(
                at(path, f"buckets.labels[{i}]"), canonical_text(ConstantKind.TEXT, label).failure()
            )
    return Typed(Buckets(of=of.expr, edges=tuple(edges), labels=expr.labels), _TEXT)


def typed_predicate(predicate: Predicate, columns: ColumnTypes, path: str) -> Predicate:
    """``predicate`` with its bare constants typed."""
    match predicate:
        case Compare():
            return _compare(predicate, columns, path)
        case Between():
            return _between(predicate, columns, path)
        case Member():
            return _member(predicate, columns, path)
        case Test():
            return _test(predicate, columns, path)
        case StartsWith():
            keys = [at(path, f"starts_with[{i}]") for i in range(2)]
            items = (predicate.value, predicate.prefix)
            pair = [
                typed_expression(e, columns, k, _TEXT) for e, k in zip(items, keys, strict=True)
            ]
            for typed, key in zip(pair, keys, strict=True):
                if not traits(typed.type.family).text:
                    refuse(key, f"expected text, but this is {shown_type(typed.type)}")
            return StartsWith(value=pair[0].expr, prefix=pair[1].expr)
        case Junction():
            parts = tuple(
                typed_predicate(p, columns, at(path, f"{predicate.op.value}[{i}]"))
                for i, p in enumerate(predicate.of)
            )
            return Junction(op=predicate.op, of=parts)
        case Not():
            return Not(of=typed_predicate(predicate.of, columns, at(path, "not")))
        case _:
            assert_never(predicate)


def _compared(
    items: tuple[Expr, ...], keys: list[str], columns: ColumnTypes, ordered: bool
) -> list[Typed]:
    """Values compared with one another: not all bare, of one comparable type."""
    if all(is_bare(item) for item in items):
        refuse(keys[0], "compare a column or a computed value, not only constants")
    typed = siblings(items, keys, columns, None)
    for item, key in zip(typed[1:], keys[1:], strict=True):
        if common_type(typed[0].type, item.type) is None:
            refuse(
                key,
                f"compares {shown_type(typed[0].type)} with {shown_type(item.type)}; compare "
                "values of one type (numbers with numbers)",
            )
    if ordered and not traits(typed[0].type.family).ordered:
        refuse(
            keys[0],
            f"{shown_type(typed[0].type)} has no order every engine agrees on; compare numbers, "
            "dates or timestamps",
        )
    return typed


def _compare(predicate: Compare, columns: ColumnTypes, path: str) -> Compare:
    op = predicate.op
    match op:
        case Comparison.EQUALS | Comparison.NOT_EQUALS:
            ordered = False
        case (
            Comparison.LESS_THAN
            | Comparison.AT_MOST
            | Comparison.GREATER_THAN
            | Comparison.AT_LEAST
        ):
            ordered = True
        case _:
            assert_never(op)
    keys = [at(path, f"{op.value}[{i}]") for i in range(2)]
    left, right = _compared((predicate.left, predicate.right), keys, columns, ordered)
    return Compare(op=op, left=left.expr, right=right.expr)


def _between(predicate: Between, columns: ColumnTypes, path: str) -> Between:
    keys = [at(path, f"between[{i}]") for i in range(3)]
    items = (predicate.value, predicate.low, predicate.high)
    value, low, high = _compared(items, keys, columns, ordered=True)
    return Between(value=value.expr, low=low.expr, high=high.expr)


def _member(predicate: Member, columns: ColumnTypes, path: str) -> Member:
    name = predicate.op.value
    keys = [at(path, f"{name}[0]")] + [
        at(path, f"{name}[1][{i}]") for i in range(len(predicate.candidates))
    ]
    typed = _compared((predicate.value, *predicate.candidates), keys, columns, ordered=False)
    return Member(op=predicate.op, value=typed[0].expr, candidates=tuple(t.expr for t in typed[1:]))


def _test(predicate: Test, columns: ColumnTypes, path: str) -> Test:
    key = at(path, predicate.check.value)
    if is_bare(predicate.of):
        refuse(key, "test a column or a computed value, not a constant")
    of = typed_expression(predicate.of, columns, key, None)
    match predicate.check:
        case Check.IS_TRUE:
            if not traits(of.type.family).boolean:
                refuse(key, f"expected a boolean, but this is {shown_type(of.type)}")
        case Check.IS_NULL | Check.IS_NOT_NULL:
            pass
        case _:
            assert_never(predicate.check)
    return Test(check=predicate.check, of=of.expr)
