"""Written expressions and predicates to their nodes (``core/expression``), one key per node.

Only the shape is read here: which kind a mapping names, how many operands each kind takes,
the names of columns and relationships. Types, constants and columns are checked with the whole
catalog (``settle_metric`` in :mod:`sutura.core.catalog.checks.expressions`), where the models
are known. A bare scalar is a constant whose kind is inferred there from the operand beside it.
"""

from typing import Final, assert_never

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.written import (
    WrittenBranch,
    WrittenBuckets,
    WrittenColumnValue,
    WrittenExpression,
    WrittenPredicate,
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
    Connective,
    Constant,
    ConstantKind,
    DatePart,
    Expr,
    Junction,
    Member,
    Membership,
    Negate,
    Not,
    Part,
    Predicate,
    StartsWith,
    Test,
)

_CONSTANTS: Final = {kind.value: kind for kind in ConstantKind if kind.value != "inferred"}
_OPERATIONS: Final = {op.value: op for op in ArithmeticOp}
_PARTS: Final = {part.value: part for part in Part}
_EXPRESSION_KINDS: Final = (
    "column",
    *_CONSTANTS,
    *_OPERATIONS,
    "negate",
    "coalesce",
    "case",
    *_PARTS,
    "buckets",
)
_COMPARISONS: Final = {op.value: op for op in Comparison}
_CHECKS: Final = {check.value: check for check in Check}
_PREDICATE_KINDS: Final = (
    *_COMPARISONS,
    "between",
    "in",
    "not_in",
    *_CHECKS,
    "starts_with",
    "and",
    "or",
    "not",
)

WrittenValue = WrittenExpression | str


def via_chain(check: Checker, key: str, written: str | list[str] | None) -> tuple[str, ...]:
    """A ``via`` key: one relationship name, or a list of them walked in order."""
    if written is None:
        return ()
    if isinstance(written, str):
        return (check.name(key, written),)
    if not written:
        check.fail(key, "an empty via; omit it for a column of the metric's own model")
    check.unique(key + "[{}]", written, "the relationship")
    return tuple(check.name(f"{key}[{i}]", name) for i, name in enumerate(written))


def build_expression(check: Checker, key: str, written: WrittenValue) -> Expr:
    """The expression written at ``key``."""
    if isinstance(written, str):
        return Constant(kind=ConstantKind.INFERRED, text=written)
    present = {kind: getattr(written, kind) is not None for kind in _EXPRESSION_KINDS}
    kind = check.one_of(key, present)
    if kind != "column" and written.via is not None:
        check.fail(f"{key}.via", "via goes with column, to reach a column of another model")
    inside = f"{key}.{kind}"
    value = getattr(written, kind)
    if kind == "column":
        return Column(
            name=check.identifier(inside, value), via=via_chain(check, f"{key}.via", written.via)
        )
    if kind in _CONSTANTS:
        return Constant(kind=_CONSTANTS[kind], text=value)
    if kind in _OPERATIONS:
        return _arithmetic(check, inside, _OPERATIONS[kind], value)
    if kind in _PARTS:
        return DatePart(part=_PARTS[kind], of=build_expression(check, inside, value))
    if kind == "negate":
        return Negate(of=build_expression(check, inside, value))
    if kind == "coalesce":
        return Coalesce(of=_operands(check, inside, value, least=2))
    if kind == "case":
        return _case(check, inside, value)
    return _buckets(check, inside, value)


def _operands(
    check: Checker, key: str, written: list[WrittenValue], least: int
) -> tuple[Expr, ...]:
    if len(written) < least:
        check.fail(key, f"expected a list of at least {least} operands")
    return tuple(build_expression(check, f"{key}[{i}]", item) for i, item in enumerate(written))


def _exactly(check: Checker, key: str, written: list[WrittenValue], count: int) -> tuple[Expr, ...]:
    if len(written) != count:
        check.fail(key, f"expected a list of exactly {count} operands")
    return _operands(check, key, written, count)


def _arithmetic(
    check: Checker, key: str, op: ArithmeticOp, written: list[WrittenValue]
) -> Arithmetic:
    match op:
        case ArithmeticOp.ADD | ArithmeticOp.MULTIPLY:
            operands = _operands(check, key, written, least=2)
        case ArithmeticOp.SUBTRACT | ArithmeticOp.DIVIDE:
            operands = _exactly(check, key, written, 2)
        case _:
            assert_never(op)
    return Arithmetic(op=op, operands=operands)


def _case(check: Checker, key: str, written: list[WrittenBranch]) -> Case:
    if len(written) < 2:
        check.fail(key, "expected at least one {when, then} and a last {else}")
    branches = []
    for i, item in enumerate(written[:-1]):
        at = f"{key}[{i}]"
        if item.otherwise is not None:
            check.fail(f"{at}.else", "else goes last, after every {when, then}")
        if item.when is None or item.then is None:
            check.fail(at, "expected {when: <predicate>, then: <expression>}")
        branches.append(
            Branch(
                when=build_predicate(check, f"{at}.when", item.when),
                then=build_expression(check, f"{at}.then", item.then),
            )
        )
    last = written[-1]
    at = f"{key}[{len(written) - 1}]"
    if last.otherwise is None or last.when is not None or last.then is not None:
        check.fail(at, "expected the last item to be {else: <expression>} alone")
    otherwise = build_expression(check, f"{at}.else", last.otherwise)
    return Case(branches=tuple(branches), otherwise=otherwise)


def _buckets(check: Checker, key: str, written: WrittenBuckets) -> Buckets:
    if not written.edges:
        check.fail(f"{key}.edges", "expected at least one edge")
    return Buckets(
        of=build_expression(check, f"{key}.of", written.of),
        edges=tuple(Constant(kind=ConstantKind.INFERRED, text=e) for e in written.edges),
        labels=tuple(written.labels),
    )


def build_predicate(check: Checker, key: str, written: WrittenPredicate) -> Predicate:
    """The predicate written at ``key``."""
    names = {"in": "is_in", "and": "all_of", "or": "any_of", "not": "negated"}
    present = {
        kind: getattr(written, names.get(kind, kind)) is not None for kind in _PREDICATE_KINDS
    }
    kind = check.one_of(key, present)
    inside = f"{key}.{kind}"
    value = getattr(written, names.get(kind, kind))
    if kind in _COMPARISONS:
        return _compare(check, inside, _COMPARISONS[kind], value)
    if kind in _CHECKS:
        return Test(check=_CHECKS[kind], of=build_expression(check, inside, value))
    if kind == "between":
        low_high = _exactly(check, inside, value, 3)
        return Between(value=low_high[0], low=low_high[1], high=low_high[2])
    if kind in ("in", "not_in"):
        return _member(check, inside, Membership(kind), value)
    if kind == "starts_with":
        pair = _exactly(check, inside, value, 2)
        return StartsWith(value=pair[0], prefix=pair[1])
    if kind == "not":
        return Not(of=build_predicate(check, inside, value))
    if len(value) < 2:
        check.fail(inside, "expected a list of at least two predicates")
    parts = tuple(build_predicate(check, f"{inside}[{i}]", p) for i, p in enumerate(value))
    return Junction(op=Connective(kind), of=parts)


def _compare(
    check: Checker, key: str, op: Comparison, written: list[WrittenValue] | WrittenColumnValue
) -> Compare:
    if isinstance(written, WrittenColumnValue):  # the older spelling: a column and a constant
        column = check.identifier(f"{key}.column", written.column)
        value = Constant(kind=ConstantKind.INFERRED, text=written.value)
        return Compare(op=op, left=Column(name=column), right=value)
    left, right = _exactly(check, key, written, 2)
    return Compare(op=op, left=left, right=right)


def _member(
    check: Checker, key: str, op: Membership, written: list[WrittenValue | list[WrittenValue]]
) -> Member:
    if len(written) != 2 or not isinstance(written[1], list) or isinstance(written[0], list):
        check.fail(key, "expected [<expression>, [<expression>, ...]]: a value and its list")
    if not written[1]:
        check.fail(f"{key}[1]", "expected at least one value in the list")
    value = build_expression(check, f"{key}[0]", written[0])
    candidates = tuple(
        build_expression(check, f"{key}[1][{i}]", item) for i, item in enumerate(written[1])
    )
    return Member(op=op, value=value, candidates=candidates)
