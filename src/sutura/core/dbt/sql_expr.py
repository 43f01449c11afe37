"""A dbt ``expr`` (a SQL fragment) read as a tree of the typed expression vocabulary.

The text is parsed with sqlglot and each node is translated into its counterpart
(``docs/import-dbt.md`` lists them); the SQL is never copied. Whatever has no counterpart —
a function sutura does not know, a division (sutura's quotient is a decimal cut at six
places, the engine's is its own), a cast other than to a date — is refused with the reason,
and the importer lists it as not carried over. A column is handed to ``resolve``, which says
what it reads (a model column, a column along relationships, a dimension's own tree).

>>> from returns.result import Success
>>> cols = lambda name: Success({"column": name})
>>> from sutura.core.dbt.tree import flow
>>> case = "case when is_food_item = 1 then product_price else 0 end"
>>> print(flow(expression(case, cols).unwrap()))
{case: [{when: {equals: [{column: is_food_item}, {number: "1"}]}, then: {column: product_price}},
 {else: {number: "0"}}]}
>>> expression("cast(ordered_at as DATE)", cols).unwrap()
{'date_of': {'column': 'ordered_at'}}
>>> flow(predicate("a >= 20 and b = 'new'", cols).unwrap())
'{and: [{at_least: [{column: a}, {number: "20"}]}, {equals: [{column: b}, {text: new}]}]}'
>>> print(expression("price / 2", cols).failure())
the expression 'price / 2' divides; sutura's quotient is a decimal cut at six places, the
warehouse's is its own
"""

import re
from collections.abc import Callable
from typing import Any, Final

import sqlglot
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success
from sqlglot import exp
from sqlglot.errors import ParseError

from sutura.core.catalog.error import quoted
from sutura.core.dbt.tree import Tree

# sqlglot's node classes under names of their own: sutura's vocabulary has a Column and a Not.
SqlColumn: Final = exp.Column
SqlNot: Final = exp.Not

Resolve = Callable[[str], Result[Tree, str]]
"""What a column name reads: a tree, or why it cannot be read."""

_COMPARISONS: Final[dict[type[exp.Expr], str]] = {
    exp.EQ: "equals",
    exp.NEQ: "not_equals",
    exp.LT: "less_than",
    exp.LTE: "at_most",
    exp.GT: "greater_than",
    exp.GTE: "at_least",
}
_ARITHMETIC: Final[dict[type[exp.Expr], str]] = {
    exp.Add: "add",
    exp.Sub: "subtract",
    exp.Mul: "multiply",
}
_TRUNCATED: Final = {"day": "date_of", "month": "month", "quarter": "quarter"}


class UntranslatableError(Exception):
    """Raised inside the walk with the reason; turned into a Failure at its entry."""


def parse(text: str) -> Result[exp.Expr, str]:
    """``text`` parsed as one SQL expression, or why it is not one."""
    try:
        parsed: exp.Expr = sqlglot.parse_one(text, read="duckdb")
    except (ParseError, ValueError) as error:
        first = str(error).splitlines()[0] if str(error) else "a parse error"
        return Failure(f"the expression {quoted(text)} does not parse as SQL ({first[:120]})")
    return Success(parsed)


def expression(text: str, resolve: Resolve) -> Result[Tree, str]:
    """The value ``text`` computes per row, as a tree."""
    return parse(text).bind(lambda node: _guard(text, lambda: _value(node, resolve)))


def predicate(text: str, resolve: Resolve) -> Result[Tree, str]:
    """The condition ``text`` states, as a predicate tree."""
    return parse(text).bind(lambda node: _guard(text, lambda: _condition(node, resolve)))


def _guard(text: str, walk: Callable[[], Tree]) -> Result[Tree, str]:
    try:
        return Success(walk())
    except UntranslatableError as reason:
        return Failure(f"the expression {quoted(text.strip())} {reason}")


def _column(node: exp.Column, resolve: Resolve) -> Tree:
    if node.table:
        raise UntranslatableError(
            f"names a table ({quoted(node.sql())}); a model reads its own columns"
        )
    found = resolve(node.name)
    if not is_successful(found):
        raise UntranslatableError(found.failure())
    return found.unwrap()


def _number(text: str) -> Tree:
    if "e" in text.casefold():
        raise UntranslatableError(f"writes the number {quoted(text)} with an exponent")
    return {"number": f"0{text}" if text.startswith(".") else text}


def _literal(node: exp.Literal, resolve: Resolve) -> Tree:
    return {"text": node.this} if node.is_string else _number(str(node.this))


def _boolean(node: exp.Boolean, resolve: Resolve) -> Tree:
    return {"boolean": "true" if node.this else "false"}


def _divides(node: exp.Div, resolve: Resolve) -> Tree:
    raise UntranslatableError(
        "divides; sutura's quotient is a decimal cut at six places, the warehouse's is its own"
    )


def _coalesce(node: exp.Coalesce, resolve: Resolve) -> Tree:
    return {"coalesce": [_value(e, resolve) for e in [node.this, *node.expressions]]}


def _cast(node: exp.Cast, resolve: Resolve) -> Tree:
    if node.to.this != exp.DataType.Type.DATE:
        raise UntranslatableError(
            f"casts to {node.to.sql()}; only a cast to DATE has a counterpart"
        )
    return {"date_of": _value(node.this, resolve)}


_VALUES: Final[dict[type[exp.Expr], Callable[[Any, Resolve], Tree]]] = {
    exp.Paren: lambda node, resolve: _value(node.this, resolve),
    exp.Column: _column,
    exp.Literal: _literal,
    exp.Boolean: _boolean,
    exp.Neg: lambda node, resolve: {"negate": _value(node.this, resolve)},
    exp.Div: _divides,
    exp.Add: lambda node, resolve: _arithmetic(node, resolve),
    exp.Sub: lambda node, resolve: _arithmetic(node, resolve),
    exp.Mul: lambda node, resolve: _arithmetic(node, resolve),
    exp.Coalesce: _coalesce,
    exp.Case: lambda node, resolve: _case(node, resolve),
    exp.Cast: _cast,
    exp.DateTrunc: lambda node, resolve: _truncated(node, resolve),
    exp.TimestampTrunc: lambda node, resolve: _truncated(node, resolve),
}
"""What each SQL node a value may be is translated by; any other has no counterpart."""


def _value(node: exp.Expr, resolve: Resolve) -> Tree:
    handler = _VALUES.get(type(node))
    if handler is not None:
        return handler(node, resolve)
    if type(node) in _COMPARISONS or isinstance(node, exp.Connector | SqlNot):
        raise UntranslatableError("is a condition where a value is expected")
    raise UntranslatableError(f"uses {quoted(node.key)}, which has no counterpart in sutura")


def _arithmetic(node: exp.Binary, resolve: Resolve) -> Tree:
    op = _ARITHMETIC[type(node)]
    left, right = _value(node.this, resolve), _value(node.expression, resolve)
    # sqlglot nests a + b + c to the left; the vocabulary's add and multiply take them all.
    if op != "subtract" and isinstance(left, dict) and list(left) == [op]:
        operands = left[op]
        if isinstance(operands, list) and not isinstance(node.this, exp.Paren):
            return {op: [*operands, right]}
    return {op: [left, right]}


def _case(node: exp.Case, resolve: Resolve) -> Tree:
    default = node.args.get("default")
    if default is None:
        raise UntranslatableError("is a CASE without ELSE; write the value it takes otherwise")
    subject = node.this
    branches: list[Tree] = []
    for branch in node.args.get("ifs") or []:
        when: Tree = (
            _condition(branch.this, resolve)
            if subject is None
            else {"equals": [_value(subject, resolve), _value(branch.this, resolve)]}
        )
        branches.append({"when": when, "then": _value(branch.args["true"], resolve)})
    return {"case": [*branches, {"else": _value(default, resolve)}]}


def _truncated(node: exp.Expr, resolve: Resolve) -> Tree:
    unit = node.args.get("unit")
    name = (unit.name if isinstance(unit, exp.Expr) else str(unit or "")).casefold()
    part = _TRUNCATED.get(name)
    if part is None:
        raise UntranslatableError(f"truncates to {quoted(name)}; only day, month and quarter do")
    return {part: _value(node.this, resolve)}


def _junction(node: exp.Connector, resolve: Resolve) -> Tree:
    op = "and" if isinstance(node, exp.And) else "or"
    return {op: _flattened(node, type(node), resolve)}


def _negated(node: exp.Not, resolve: Resolve) -> Tree:
    inside = _condition(node.this, resolve)
    if isinstance(node.this, exp.In) and isinstance(inside, dict):
        return {"not_in": inside["in"]}
    if isinstance(node.this, exp.Is) and isinstance(inside, dict):
        return {"is_not_null": inside["is_null"]}
    return {"not": inside}


def _is(node: exp.Is, resolve: Resolve) -> Tree:
    if not isinstance(node.expression, exp.Null):
        raise UntranslatableError("tests IS against something other than NULL")
    return {"is_null": _value(node.this, resolve)}


def _in(node: exp.In, resolve: Resolve) -> Tree:
    if node.args.get("query") is not None or not node.expressions:
        raise UntranslatableError("tests IN against a query; sutura lists the values")
    values: list[Tree] = [_value(e, resolve) for e in node.expressions]
    return {"in": [_value(node.this, resolve), values]}


def _between(node: exp.Between, resolve: Resolve) -> Tree:
    parts = [node.this, node.args["low"], node.args["high"]]
    return {"between": [_value(e, resolve) for e in parts]}


_DAY: Final = re.compile(r"\d{4}-\d{2}-\d{2}")
_DAYS: Final = frozenset({"date_of", "month", "quarter"})


def _as_day(text_side: Tree, other: Tree) -> Tree:
    """A text constant written as a day, beside a value that is a day, is that day (SQL
    reads ``ordered_at >= '2024-01-01'`` so); any other constant stays as written."""
    if not (isinstance(other, dict) and set(other) & _DAYS and isinstance(text_side, dict)):
        return text_side
    written = text_side.get("text")
    if isinstance(written, str) and _DAY.fullmatch(written):
        return {"date": written}
    return text_side


def _compared(node: exp.Binary, resolve: Resolve) -> Tree:
    left, right = _value(node.this, resolve), _value(node.expression, resolve)
    pair = [_as_day(left, right), _as_day(right, left)]
    return {_COMPARISONS[type(node)]: pair}


def _pattern(node: exp.Expr, resolve: Resolve) -> Tree:
    raise UntranslatableError("matches a pattern (LIKE); sutura compares prefixes only")


_CONDITIONS: Final[dict[type[exp.Expr], Callable[[Any, Resolve], Tree]]] = {
    exp.Paren: lambda node, resolve: _condition(node.this, resolve),
    exp.And: _junction,
    exp.Or: _junction,
    exp.Not: _negated,
    exp.Is: _is,
    exp.In: _in,
    exp.Between: _between,
    exp.Column: lambda node, resolve: {"is_true": _column(node, resolve)},
    exp.Like: _pattern,
    exp.ILike: _pattern,
    **dict.fromkeys(_COMPARISONS, _compared),
}
"""What each SQL node a condition may be is translated by; any other has no counterpart."""


def _condition(node: exp.Expr, resolve: Resolve) -> Tree:
    handler = _CONDITIONS.get(type(node))
    if handler is None:
        raise UntranslatableError(f"uses {quoted(node.key)} as a condition, which sutura has not")
    return handler(node, resolve)


def _flattened(node: exp.Expr, kind: type[exp.Expr], resolve: Resolve) -> list[Tree]:
    if isinstance(node, kind):
        assert isinstance(node, exp.Binary)
        return [*_flattened(node.this, kind, resolve), *_flattened(node.expression, kind, resolve)]
    return [_condition(node, resolve)]
