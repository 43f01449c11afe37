"""Type checking: every node of a tree against the types of the columns it reads.

:func:`check_expression` and :func:`check_predicate` return the tree with every bare constant
typed by the operand beside it, and an expression's result type (``docs/catalog.md`` states
each rule, :mod:`~sutura.core.expression.infer` applies them), or the first problem with the
key path where it is written, relative to the tree's own key (``multiply[1].subtract[0]``). A
tree deeper than :data:`~sutura.core.expression.nodes.MAX_DEPTH` or larger than
:data:`~sutura.core.expression.nodes.MAX_NODES` is refused before anything else is read.

Columns are looked up through a function the caller gives: the catalog resolves a name and its
``via`` chain against its models and says what the model declares.

>>> from sutura.core.expression.nodes import Arithmetic, ArithmeticOp, Column, Constant
>>> declared = {"price": SqlType(family=Family.DECIMAL, precision=15, scale=2)}
>>> lookup = lambda column: Success(declared.get(column.name))
>>> half = Arithmetic(op=ArithmeticOp.MULTIPLY,
...     operands=(Column(name="price"), Constant(kind=ConstantKind.INFERRED, text="0.5")))
>>> from sutura.core.expression.types import shown_type
>>> shown_type(check_expression(half, lookup).unwrap().type)
'decimal(17,3)'
>>> check_expression(Column(name="qty"), lookup).failure().problem
"the column 'qty' declares no type; declare it in its model to compute with it"
"""

from returns.result import Failure, Result, Success

from sutura.core.expression.infer import typed_expression, typed_predicate
from sutura.core.expression.nodes import (
    MAX_DEPTH,
    MAX_NODES,
    ConstantKind,
    Expr,
    Predicate,
    Size,
    expression_size,
    predicate_size,
)
from sutura.core.expression.problem import ColumnTypes, ExpressionError, ProblemError, Typed, refuse
from sutura.core.expression.types import Family, SqlType

__all__ = ["ConstantKind", "Family", "SqlType", "check_expression", "check_predicate"]


def check_expression(
    expr: Expr, columns: ColumnTypes, expected: SqlType | None = None
) -> Result[Typed, ExpressionError]:
    """``expr`` checked against ``columns``; a bare constant at its root takes ``expected``."""
    try:
        _bounded(expression_size(expr))
        return Success(typed_expression(expr, columns, "", expected))
    except ProblemError as stop:
        return Failure(stop.error)


def check_predicate(
    predicate: Predicate, columns: ColumnTypes
) -> Result[Predicate, ExpressionError]:
    """``predicate`` checked against ``columns``."""
    try:
        _bounded(predicate_size(predicate))
        return Success(typed_predicate(predicate, columns, ""))
    except ProblemError as stop:
        return Failure(stop.error)


def _bounded(measured: Size) -> None:
    if measured.depth > MAX_DEPTH:
        refuse("", f"the expression nests {measured.depth} nodes deep; at most {MAX_DEPTH} may")
    if measured.nodes > MAX_NODES:
        refuse("", f"the expression has {measured.nodes} nodes; at most {MAX_NODES} may")
