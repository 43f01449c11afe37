"""Every node of the vocabulary reads as a formula: operators with their precedence, constants
quoted by kind, columns after the relationships that reach them."""

import pytest

from sutura.core.expression.formula import expression_formula, predicate_formula
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
)
from sutura.core.expression.nodes import Test as ValueTest

A = Column(name="a")
B = Column(name="b", via=("r1", "r2"))
ONE = Constant(kind=ConstantKind.NUMBER, text="1")
X = Constant(kind=ConstantKind.TEXT, text="it's")
HALF = Constant(kind=ConstantKind.NUMBER, text="2.5")
IS_TRUE_B = ValueTest(check=Check.IS_TRUE, of=B)


def _op(op: ArithmeticOp, *operands: Expr) -> Arithmetic:
    return Arithmetic(op=op, operands=operands)


EXPRESSIONS: list[tuple[Expr, str]] = [
    (A, "a"),
    (B, "r1.r2.b"),
    (Column(name="my col"), '"my col"'),
    (Constant(kind=ConstantKind.DATE, text="1994-01-01"), "date '1994-01-01'"),
    (
        Constant(kind=ConstantKind.TIMESTAMP, text="2013-01-01T05:00:00"),
        "timestamp '2013-01-01T05:00:00'",
    ),
    (Constant(kind=ConstantKind.BOOLEAN, text="true"), "true"),
    (X, "'it''s'"),
    (_op(ArithmeticOp.ADD, A, B, ONE), "a + r1.r2.b + 1"),
    (_op(ArithmeticOp.SUBTRACT, A, _op(ArithmeticOp.SUBTRACT, B, ONE)), "a - (r1.r2.b - 1)"),
    (_op(ArithmeticOp.MULTIPLY, A, _op(ArithmeticOp.ADD, B, ONE)), "a * (r1.r2.b + 1)"),
    (_op(ArithmeticOp.ADD, A, _op(ArithmeticOp.MULTIPLY, B, ONE)), "a + r1.r2.b * 1"),
    (_op(ArithmeticOp.DIVIDE, _op(ArithmeticOp.DIVIDE, A, B), ONE), "a / r1.r2.b / 1"),
    (Negate(of=_op(ArithmeticOp.ADD, A, ONE)), "-(a + 1)"),
    (Coalesce(of=(A, X)), "coalesce(a, 'it''s')"),
    (
        Case(branches=(Branch(when=ValueTest(check=Check.IS_NULL, of=A), then=X),), otherwise=A),
        "case when a is null then 'it''s' else a end",
    ),
    (DatePart(part=Part.DAY_OF_WEEK, of=B), "day_of_week(r1.r2.b)"),
    (
        Buckets(
            of=A,
            edges=(ONE, Constant(kind=ConstantKind.NUMBER, text="2.5")),
            labels=("x", "y", "z"),
        ),
        "buckets(a, [1, 2.5] -> ['x', 'y', 'z'])",
    ),
]

PREDICATES: list[tuple[Predicate, str]] = [
    (Compare(op=Comparison.EQUALS, left=A, right=B), "a = r1.r2.b"),
    (Compare(op=Comparison.NOT_EQUALS, left=A, right=X), "a != 'it''s'"),
    (Compare(op=Comparison.LESS_THAN, left=A, right=ONE), "a < 1"),
    (Compare(op=Comparison.AT_MOST, left=A, right=ONE), "a <= 1"),
    (Compare(op=Comparison.GREATER_THAN, left=A, right=ONE), "a > 1"),
    (Compare(op=Comparison.AT_LEAST, left=A, right=ONE), "a >= 1"),
    (Between(value=A, low=ONE, high=B), "a between 1 and r1.r2.b"),
    (Member(op=Membership.IN, value=A, candidates=(X, ONE)), "a in ('it''s', 1)"),
    (Member(op=Membership.NOT_IN, value=A, candidates=(X,)), "a not in ('it''s')"),
    (ValueTest(check=Check.IS_NOT_NULL, of=A), "a is not null"),
    (ValueTest(check=Check.IS_TRUE, of=A), "a is true"),
    (StartsWith(value=A, prefix=X), "a starts with 'it''s'"),
    (
        Junction(
            op=Connective.AND,
            of=(
                ValueTest(check=Check.IS_TRUE, of=A),
                Junction(
                    op=Connective.OR,
                    of=(ValueTest(check=Check.IS_NULL, of=A), ValueTest(check=Check.IS_TRUE, of=B)),
                ),
            ),
        ),
        "a is true and (a is null or r1.r2.b is true)",
    ),
    (Not(of=ValueTest(check=Check.IS_NULL, of=A)), "not (a is null)"),
]


@pytest.mark.parametrize(("expr", "formula"), EXPRESSIONS, ids=[f for _, f in EXPRESSIONS])
def test_each_expression_reads_as_its_formula(expr: Expr, formula: str) -> None:
    assert expression_formula(expr) == formula


@pytest.mark.parametrize(("predicate", "formula"), PREDICATES, ids=[f for _, f in PREDICATES])
def test_each_predicate_reads_as_its_formula(predicate: Predicate, formula: str) -> None:
    assert predicate_formula(predicate) == formula


def test_with_bound_constants_every_constant_is_a_question_mark() -> None:
    predicate = Member(op=Membership.IN, value=A, candidates=(X, ONE))
    assert predicate_formula(predicate, bound=True) == "a in (?, ?)"
