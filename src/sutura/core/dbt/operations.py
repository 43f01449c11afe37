"""A dbt derived metric's ``expr`` read as the catalog's derived metrics: ops over two metrics,
each multiplied by an exact decimal ``scale``, nested.

MetricFlow computes ``expr`` in SQL over its input metrics' values. A derived metric of the
catalog is one of four ops over two different metrics, times an optional exact ``scale``, and
may name derived metrics. So an ``expr`` is carried over when it is ``+ - * /`` over its input
metrics with constants only as factors: a constant factor anywhere in a product or quotient
is the scale of the op around it (``100 * a / b`` is 100 × (a ÷ b), exactly, the same NULL
where b is zero), and an inner sum or difference, or a side the other does not share a scale
with, is a derived metric of its own — a *part*.

>>> inputs = {"a": "a", "b": "b", "c": "c"}
>>> growth = derived_of("(a - b) / b", inputs).bind(combined).unwrap()
>>> [(str(part.op), part.scale) for part in parts(growth)]
[('difference', Decimal('1')), ('ratio', Decimal('1'))]
>>> [derived_of(text, inputs).unwrap().scale for text in ("100 * a / b", "a / b / 1000")]
[Decimal('100'), Decimal('0.001')]
>>> derived_of("a / b / 3", inputs).failure()
"divides by 3, and 1 / 3 is no exact decimal (a derived metric's scale is one)"
>>> derived_of("a + 1", inputs).failure()
"adds or subtracts a constant (1); a derived metric's scale multiplies, nothing adds"
"""

import decimal
import re
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import Final, NamedTuple, TypeAlias

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success
from sqlglot import exp

from sutura.core.catalog.error import quoted
from sutura.core.dbt.sql_expr import SqlColumn, parse
from sutura.core.definitions.model import DerivedOp

_ONE: Final = Decimal(1)
# Exact or refused: a quotient that does not end, or a product past 60 digits, is no scale.
_EXACT: Final = decimal.Context(
    prec=60,
    traps=[decimal.Inexact, decimal.DivisionByZero, decimal.InvalidOperation, decimal.Overflow],
)
# What the catalog reads as a scale (docs/catalog.md, derived.scale).
_WRITTEN_SCALE: Final = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")


class Leaf(NamedTuple):
    """An input metric, by its own name (not its alias in ``expr``)."""

    metric: str


class Combined(NamedTuple):
    """One derived metric: ``op`` of two operands, times ``scale``."""

    op: DerivedOp
    first: "Operand"
    second: "Operand"
    scale: Decimal = _ONE


Operand: TypeAlias = Leaf | Combined


class Scaled(NamedTuple):
    """What a piece of ``expr`` computes: an operand times a factor not yet placed."""

    scale: Decimal
    operand: Operand


class _RefusedError(Exception):
    """Raised inside the walk with the reason; turned into a Failure at its entry."""


def derived_of(text: str, inputs: Mapping[str, str]) -> Result[Scaled, str]:
    """``text`` over the input metrics ``inputs`` (the name ``expr`` uses → the metric), as an
    operand times a scale, or why it cannot be read exactly."""
    parsed = parse(text)
    if not is_successful(parsed):
        return Failure(parsed.failure())
    try:
        value = _walk(parsed.unwrap(), inputs)
    except _RefusedError as reason:
        return Failure(str(reason))
    if isinstance(value, Decimal):
        return Failure("is a constant; a derived metric combines two metrics")
    return Success(value)


def leaves(operand: Operand) -> Iterator[str]:
    """The input metrics ``operand`` reads, left to right (one read twice, twice)."""
    match operand:
        case Leaf():
            yield operand.metric
        case Combined():
            yield from leaves(operand.first)
            yield from leaves(operand.second)


def combined(scaled: Scaled) -> Result[Combined, str]:
    """The derived metric ``scaled`` is (its scale placed), or why it is none: one metric
    alone, an op over one metric twice, a scale the catalog cannot write."""
    if isinstance(scaled.operand, Leaf):
        alone = scaled.operand.metric
        if scaled.scale == _ONE:
            return Failure(f"is its input {alone} alone; a derived metric combines two metrics")
        return Failure(
            f"multiplies its one input {alone} by {_written(scaled.scale)}; a derived metric"
            " combines two metrics, and its scale multiplies what it combines"
        )
    top = scaled.operand._replace(scale=scaled.scale)
    for node in parts(top):
        if node.first == node.second:
            return Failure(
                f"takes the {node.op} of {_spoken(node.first)} with itself; a derived metric"
                " combines two different metrics"
            )
        if _WRITTEN_SCALE.fullmatch(_written(node.scale)) is None:
            return Failure(
                f"has the factor {_written(node.scale)}, longer than a scale is written (at"
                " most 18 digits before the point and 18 after)"
            )
    return Success(top)


def parts(top: Combined) -> list[Combined]:
    """Every derived metric of ``top``, inner ones first (left to right), ``top`` last; an
    inner one written twice is listed once."""
    found: list[Combined] = []

    def visit(node: Operand) -> None:
        if isinstance(node, Combined):
            visit(node.first)
            visit(node.second)
            if node not in found:
                found.append(node)

    visit(top)
    return found


def spoken(node: Combined, names: Mapping[Combined, str]) -> str:
    """``node`` as a report says it: ``ratio of m__part_1 and b, times 100``."""
    first, second = (
        names[side] if isinstance(side, Combined) else side.metric
        for side in (node.first, node.second)
    )
    times = "" if node.scale == _ONE else f", times {_written(node.scale)}"
    return f"{node.op} of {first} and {second}{times}"


def _spoken(operand: Operand) -> str:
    match operand:
        case Leaf():
            return operand.metric
        case Combined():
            return f"({operand.op} of {_spoken(operand.first)} and {_spoken(operand.second)})"


def _written(scale: Decimal) -> str:
    """A scale as plain decimal text, the way the catalog reads it (no exponent)."""
    return format(scale, "f")


def written_scale(node: Combined) -> str | None:
    """The ``scale:`` a document writes for ``node``, or None for one."""
    return None if node.scale == _ONE else _written(node.scale)


Value: TypeAlias = Decimal | Scaled
"""A constant, or an operand times a factor."""


def _walk(node: exp.Expr, inputs: Mapping[str, str]) -> Value:
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, SqlColumn) and not node.table and node.name in inputs:
        return Scaled(_ONE, Leaf(inputs[node.name]))
    if isinstance(node, exp.Literal) and not node.is_string:
        return _constant(str(node.this))
    if isinstance(node, exp.Neg):
        return _product(Decimal(-1), _walk(node.this, inputs))
    combine = _BINARY.get(type(node))
    if combine is not None and isinstance(node, exp.Binary):
        return combine(_walk(node.this, inputs), _walk(node.expression, inputs))
    if isinstance(node, SqlColumn):
        raise _RefusedError(f"reads {quoted(node.sql())}, which is none of its input metrics")
    raise _RefusedError(
        f"computes {quoted(node.sql())}, which is not + - * / of its input metrics and"
        " constant factors"
    )


def _constant(text: str) -> Decimal:
    if "e" in text.casefold():
        raise _RefusedError(f"writes the number {quoted(text)} with an exponent")
    return Decimal(text)


def _exactly(compute: Callable[[], Decimal], said: str) -> Decimal:
    try:
        return compute()
    except decimal.DivisionByZero:
        raise _RefusedError("divides by zero") from None
    except (decimal.Inexact, decimal.InvalidOperation, decimal.Overflow):
        raise _RefusedError(
            f"{said} is no exact decimal (a derived metric's scale is one)"
        ) from None


def _times(a: Decimal, b: Decimal) -> Decimal:
    return _exactly(lambda: _EXACT.multiply(a, b), f"the factor {a} × {b}")


def _over(a: Decimal, b: Decimal) -> Decimal:
    said = f"divides by {_written(b)}, and {_written(a)} / {_written(b)}"
    return _exactly(lambda: _EXACT.divide(a, b), said)


def _product(first: Value, second: Value) -> Value:
    if isinstance(first, Decimal):
        if isinstance(second, Decimal):
            return _times(first, second)
        return second._replace(scale=_times(first, second.scale))
    if isinstance(second, Decimal):
        return first._replace(scale=_times(first.scale, second))
    scale = _times(first.scale, second.scale)
    return Scaled(scale, Combined(DerivedOp.PRODUCT, first.operand, second.operand))


def _quotient(first: Value, second: Value) -> Value:
    if isinstance(first, Decimal):
        if isinstance(second, Decimal):
            return _over(first, second)
        raise _RefusedError(
            f"divides the constant {_written(first)} by a metric; a scale multiplies"
        )
    if isinstance(second, Decimal):
        return first._replace(scale=_over(first.scale, second))
    scale = _over(first.scale, second.scale)
    return Scaled(scale, Combined(DerivedOp.RATIO, first.operand, second.operand))


def _added(op: DerivedOp) -> Callable[[Value, Value], Value]:
    def add(first: Value, second: Value) -> Value:
        if isinstance(first, Decimal):
            raise _constant_added(first)
        if isinstance(second, Decimal):
            raise _constant_added(second)
        if first.scale == second.scale:
            return Scaled(first.scale, Combined(op, first.operand, second.operand))
        return Scaled(_ONE, Combined(op, _placed(first), _placed(second)))

    return add


def _constant_added(constant: Decimal) -> "_RefusedError":
    return _RefusedError(
        f"adds or subtracts a constant ({_written(constant)}); a derived metric's scale"
        " multiplies, nothing adds"
    )


def _placed(side: Scaled) -> Operand:
    """A side of a sum or difference whose factor the other does not share, as a derived
    metric of its own carrying that factor as its scale."""
    if side.scale == _ONE:
        return side.operand
    if isinstance(side.operand, Leaf):
        raise _RefusedError(
            f"multiplies {side.operand.metric} alone by {_written(side.scale)} in a sum or"
            " difference; a scale multiplies a derived metric, which combines two metrics"
        )
    return side.operand._replace(scale=side.scale)


_BINARY: Final[dict[type[exp.Expr], Callable[[Value, Value], Value]]] = {
    exp.Add: _added(DerivedOp.SUM),
    exp.Sub: _added(DerivedOp.DIFFERENCE),
    exp.Mul: _product,
    exp.Div: _quotient,
}
