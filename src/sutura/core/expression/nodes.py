"""The closed vocabulary of expressions and predicates: frozen tagged values, never SQL text.

An *expression* computes one value per row (a column, a constant, arithmetic, a date part, a
``case``, buckets); a *predicate* is true or false for a row (comparisons, ``in``, NULL tests,
``starts_with``, ``and``/``or``/``not``). Each is written in a catalog document as a YAML
mapping with one key naming its kind (``docs/catalog.md``) and read into these values by the
catalog's document modules; the compiler (``core/sql``) turns them into SQL with every
constant a bind parameter.

The two families nest: a ``case`` holds predicates, a predicate compares expressions. A tree
is bounded: at most :data:`MAX_DEPTH` nodes deep and :data:`MAX_NODES` nodes in all
(:func:`expression_size`), so no document can make the checker, the compiler or the statement grow
without bound.

>>> price = Column(name="l_extendedprice")
>>> net = Arithmetic(op=ArithmeticOp.MULTIPLY, operands=(price, Arithmetic(
...     op=ArithmeticOp.SUBTRACT,
...     operands=(Constant(kind=ConstantKind.INFERRED, text="1"), Column(name="l_discount")))))
>>> expression_size(net), [c.name for c in expression_columns(net)]
(Size(depth=3, nodes=5), ['l_extendedprice', 'l_discount'])
"""

from collections.abc import Iterator
from enum import StrEnum
from typing import Final, NamedTuple, assert_never

from sutura.core.nouns.frozen import Frozen

MAX_DEPTH: Final = 12
"""The deepest an expression or predicate may nest, counting every node on the longest path."""

MAX_NODES: Final = 128
"""The most nodes one expression or predicate may hold."""


class ConstantKind(StrEnum):
    """What a constant is; ``inferred`` is a bare scalar, typed by the operand beside it."""

    NUMBER = "number"
    TEXT = "text"
    DATE = "date"
    TIMESTAMP = "timestamp"
    BOOLEAN = "boolean"
    INFERRED = "inferred"


class Constant(Frozen, tag="constant", frozen=True):
    """A constant, kept as the text the author wrote (a number keeps its scale: ``0.050``)."""

    kind: ConstantKind
    text: str


class Column(Frozen, tag="column", frozen=True):
    """A column of the model, or of the model reached along ``via`` (many-to-one steps)."""

    name: str
    via: tuple[str, ...] = ()


class ArithmeticOp(StrEnum):
    """``add`` and ``multiply`` take two or more operands; ``subtract`` and ``divide`` two."""

    ADD = "add"
    SUBTRACT = "subtract"
    MULTIPLY = "multiply"
    DIVIDE = "divide"


class Arithmetic(Frozen, tag="arithmetic", frozen=True):
    """``op`` applied to ``operands`` from left to right."""

    op: ArithmeticOp
    operands: "tuple[Expr, ...]"


class Negate(Frozen, tag="negate", frozen=True):
    """``-of``."""

    of: "Expr"


class Coalesce(Frozen, tag="coalesce", frozen=True):
    """The first of ``of`` that is not NULL."""

    of: "tuple[Expr, ...]"


class Branch(Frozen, frozen=True):
    """One ``when`` of a ``case``: its value where the predicate holds."""

    when: "Predicate"
    then: "Expr"


class Case(Frozen, tag="case", frozen=True):
    """The ``then`` of the first branch whose predicate holds, else ``otherwise``."""

    branches: tuple[Branch, ...]
    otherwise: "Expr"


class Part(StrEnum):
    """A part of a day or an instant, in the catalog's time zone."""

    YEAR = "year"
    QUARTER = "quarter"
    MONTH = "month"
    MONTH_OF_YEAR = "month_of_year"
    ISO_WEEK = "iso_week"
    DAY_OF_WEEK = "day_of_week"
    DAY_OF_MONTH = "day_of_month"
    HOUR_OF_DAY = "hour_of_day"
    DATE_OF = "date_of"


class DatePart(Frozen, tag="part", frozen=True):
    """``part`` of the day or instant ``of``."""

    part: Part
    of: "Expr"


class Buckets(Frozen, tag="buckets", frozen=True):
    """The label of the interval of ``edges`` that ``of`` falls in.

    ``labels`` has one more item than ``edges``: below the first edge, between each two, from
    the last one up. A value equal to an edge is in the interval that starts there.
    """

    of: "Expr"
    edges: tuple[Constant, ...]
    labels: tuple[str, ...]


Expr = Column | Constant | Arithmetic | Negate | Coalesce | Case | DatePart | Buckets
"""An expression: one value per row."""


class Comparison(StrEnum):
    """How two values compare."""

    EQUALS = "equals"
    NOT_EQUALS = "not_equals"
    LESS_THAN = "less_than"
    AT_MOST = "at_most"
    GREATER_THAN = "greater_than"
    AT_LEAST = "at_least"


class Compare(Frozen, tag="compare", frozen=True):
    """``left <op> right``."""

    op: Comparison
    left: Expr
    right: Expr


class Between(Frozen, tag="between", frozen=True):
    """``low <= value <= high``."""

    value: Expr
    low: Expr
    high: Expr


class Membership(StrEnum):
    """Whether a value is one of a list, or none of it."""

    IN = "in"
    NOT_IN = "not_in"


class Member(Frozen, tag="member", frozen=True):
    """``value`` is (or is not) one of ``candidates``."""

    op: Membership
    value: Expr
    candidates: tuple[Expr, ...]


class Check(StrEnum):
    """A test of one value."""

    IS_NULL = "is_null"
    IS_NOT_NULL = "is_not_null"
    IS_TRUE = "is_true"


class Test(Frozen, tag="test", frozen=True):
    """``of`` is NULL, is not NULL, or is true."""

    check: Check
    of: Expr


class StartsWith(Frozen, tag="starts_with", frozen=True):
    """``value`` begins with ``prefix`` (a prefix, never a pattern)."""

    value: Expr
    prefix: Expr


class Connective(StrEnum):
    """How a junction joins its predicates."""

    AND = "and"
    OR = "or"


class Junction(Frozen, tag="junction", frozen=True):
    """All of ``of`` hold (``and``), or at least one does (``or``)."""

    op: Connective
    of: "tuple[Predicate, ...]"


class Not(Frozen, tag="not", frozen=True):
    """``of`` does not hold."""

    of: "Predicate"


Predicate = Compare | Between | Member | Test | StartsWith | Junction | Not
"""A predicate: true or false for each row (never unknown; ``docs/catalog.md``)."""


class Size(NamedTuple):
    """How deep a tree nests and how many nodes it holds."""

    depth: int
    nodes: int


class Inside(NamedTuple):
    """The nodes directly inside one node, in the order they are written."""

    expressions: tuple[Expr, ...] = ()
    predicates: tuple[Predicate, ...] = ()


def expression_inside(expr: Expr) -> Inside:
    """The nodes directly inside the expression ``expr``."""
    match expr:
        case Column() | Constant():
            return Inside()
        case Arithmetic():
            return Inside(expressions=expr.operands)
        case Negate() | DatePart():
            return Inside(expressions=(expr.of,))
        case Coalesce():
            return Inside(expressions=expr.of)
        case Case():
            values = (*(b.then for b in expr.branches), expr.otherwise)
            return Inside(expressions=values, predicates=tuple(b.when for b in expr.branches))
        case Buckets():
            return Inside(expressions=(expr.of, *expr.edges))
        case _:
            assert_never(expr)


def predicate_inside(predicate: Predicate) -> Inside:
    """The nodes directly inside the predicate ``predicate``."""
    match predicate:
        case Compare():
            return Inside(expressions=(predicate.left, predicate.right))
        case Between():
            return Inside(expressions=(predicate.value, predicate.low, predicate.high))
        case Member():
            return Inside(expressions=(predicate.value, *predicate.candidates))
        case Test():
            return Inside(expressions=(predicate.of,))
        case StartsWith():
            return Inside(expressions=(predicate.value, predicate.prefix))
        case Junction():
            return Inside(predicates=predicate.of)
        case Not():
            return Inside(predicates=(predicate.of,))
        case _:
            assert_never(predicate)


def _size(inside: Inside) -> Size:
    sizes = [*map(expression_size, inside.expressions), *map(predicate_size, inside.predicates)]
    depth = 1 + max((s.depth for s in sizes), default=0)
    return Size(depth=depth, nodes=1 + sum(s.nodes for s in sizes))


def expression_size(expr: Expr) -> Size:
    """The depth and node count of the tree under ``expr`` (``expr`` included)."""
    return _size(expression_inside(expr))


def predicate_size(predicate: Predicate) -> Size:
    """The depth and node count of the tree under ``predicate`` (``predicate`` included)."""
    return _size(predicate_inside(predicate))


def _columns(inside: Inside) -> Iterator[Column]:
    for expr in inside.expressions:
        yield from expression_columns(expr)
    for predicate in inside.predicates:
        yield from predicate_columns(predicate)


def expression_columns(expr: Expr) -> Iterator[Column]:
    """Every column the expression reads, in written order."""
    match expr:
        case Column():
            yield expr
        case Constant() | Arithmetic() | Negate() | Coalesce() | Case() | DatePart() | Buckets():
            yield from _columns(expression_inside(expr))
        case _:
            assert_never(expr)


def predicate_columns(predicate: Predicate) -> Iterator[Column]:
    """Every column the predicate reads, in written order."""
    yield from _columns(predicate_inside(predicate))
