"""An expression or predicate as a readable formula: one line of author text, never SQL.

The formula is shown to people and agents; it is untrusted content like every name an author
chose, so every surface escapes it as it escapes a cell (this module returns it raw). Text
constants are in single quotes with a quote inside doubled (``'it''s'``), cut visibly after
80 characters (``…[+N chars]``); a column reached along relationships is written with them
first (``lineitem_part.p_type``), and a column name that is not a plain word is in double
quotes.

>>> from sutura.core.expression.nodes import Arithmetic, ArithmeticOp, Column, Constant
>>> one = Constant(kind=ConstantKind.NUMBER, text="1")
>>> discount = Column(name="l_discount")
>>> net = Arithmetic(op=ArithmeticOp.MULTIPLY, operands=(Column(name="l_extendedprice"),
...     Arithmetic(op=ArithmeticOp.SUBTRACT, operands=(one, discount))))
>>> expression_formula(net)
'l_extendedprice * (1 - l_discount)'
>>> promo = StartsWith(value=Column(name="p_type", via=("lineitem_part",)),
...     prefix=Constant(kind=ConstantKind.TEXT, text="PRO'MO"))
>>> predicate_formula(Not(of=promo))
"not (lineitem_part.p_type starts with 'PRO''MO')"
"""

import re
from typing import Final, assert_never

from sutura.core.expression.nodes import (
    Arithmetic,
    ArithmeticOp,
    Between,
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
    Membership,
    Negate,
    Not,
    Predicate,
    StartsWith,
    Test,
)

MAX_SHOWN: Final = 80
"""The most characters of one text constant a formula shows; the rest is counted."""

_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ATOM: Final = 9  # binds tighter than any operator: never parenthesised


def column_formula(column: Column) -> str:
    """``via.via.name``, the name in double quotes unless it is a plain word."""
    name = column.name
    shown = name if _WORD.fullmatch(name) else '"' + name.replace('"', '""') + '"'
    return ".".join((*column.via, shown))


def constant_formula(constant: Constant) -> str:
    """A constant as written, quoted by its kind."""
    match constant.kind:
        case ConstantKind.NUMBER | ConstantKind.BOOLEAN:
            return constant.text
        case ConstantKind.TEXT | ConstantKind.INFERRED:
            return text_formula(constant.text)
        case ConstantKind.DATE | ConstantKind.TIMESTAMP:
            return f"{constant.kind.value} {text_formula(constant.text)}"
        case _:
            assert_never(constant.kind)


def text_formula(text: str) -> str:
    """``text`` in single quotes, a quote doubled, cut visibly past :data:`MAX_SHOWN`.

    >>> text_formula("x" * 85)[-16:]
    "xxxx…[+5 chars]'"
    """
    cut = f"…[+{len(text) - MAX_SHOWN} chars]" if len(text) > MAX_SHOWN else ""
    return "'" + text[:MAX_SHOWN].replace("'", "''") + cut + "'"


def expression_formula(expr: Expr, *, bound: bool = False) -> str:
    """``expr`` as a formula; with ``bound``, each constant is ``?`` (a bound value)."""
    return _Formula(bound).expression(expr)


def predicate_formula(predicate: Predicate, *, bound: bool = False) -> str:
    """``predicate`` as a formula; with ``bound``, each constant is ``?`` (a bound value)."""
    return _Formula(bound).predicate(predicate)


class _Formula:
    """Writes one formula: constants as written, or each as ``?``."""

    def __init__(self, bound: bool) -> None:
        self._bound = bound

    def _constant(self, constant: Constant) -> str:
        return "?" if self._bound else constant_formula(constant)

    def _label(self, text: str) -> str:
        return "?" if self._bound else text_formula(text)

    def expression(self, expr: Expr) -> str:
        return self._expression(expr)[0]

    def _expression(self, expr: Expr) -> tuple[str, int]:
        """The formula and how tightly it binds (higher: fewer parentheses around it)."""
        match expr:
            case Column():
                return column_formula(expr), _ATOM
            case Constant():
                return self._constant(expr), _ATOM
            case Arithmetic():
                return self._arithmetic(expr)
            case Negate():
                return "-" + self._wrapped(expr.of, 3), 3
            case Coalesce():
                return f"coalesce({', '.join(map(self.expression, expr.of))})", _ATOM
            case Case():
                whens = " ".join(
                    f"when {self.predicate(b.when)} then {self.expression(b.then)}"
                    for b in expr.branches
                )
                return f"case {whens} else {self.expression(expr.otherwise)} end", _ATOM
            case DatePart():
                return f"{expr.part.value}({self.expression(expr.of)})", _ATOM
            case Buckets():
                edges = ", ".join(map(self._constant, expr.edges))
                labels = ", ".join(map(self._label, expr.labels))
                return f"buckets({self.expression(expr.of)}, [{edges}] -> [{labels}])", _ATOM
            case _:
                assert_never(expr)

    def _arithmetic(self, expr: Arithmetic) -> tuple[str, int]:
        sign, level = _operator(expr.op)
        first, *rest = expr.operands
        # Left to right: an operand on the right binds tighter than its operator, or is wrapped.
        parts = [self._wrapped(first, level), *(self._wrapped(o, level + 1) for o in rest)]
        return f" {sign} ".join(parts), level

    def _wrapped(self, expr: Expr, level: int) -> str:
        text, binds = self._expression(expr)
        return text if binds >= level else f"({text})"

    def predicate(self, predicate: Predicate) -> str:
        match predicate:
            case Compare():
                left, right = self.expression(predicate.left), self.expression(predicate.right)
                return f"{left} {_comparison(predicate.op)} {right}"
            case Between():
                value, low = self.expression(predicate.value), self.expression(predicate.low)
                return f"{value} between {low} and {self.expression(predicate.high)}"
            case Member():
                listed = ", ".join(map(self.expression, predicate.candidates))
                op = _membership(predicate.op)
                return f"{self.expression(predicate.value)} {op} ({listed})"
            case Test():
                return f"{self.expression(predicate.of)} {_check(predicate.check)}"
            case StartsWith():
                prefix = self.expression(predicate.prefix)
                return f"{self.expression(predicate.value)} starts with {prefix}"
            case Junction():
                return f" {predicate.op.value} ".join(map(self._inner, predicate.of))
            case Not():
                return f"not ({self.predicate(predicate.of)})"
            case _:
                assert_never(predicate)

    def _inner(self, predicate: Predicate) -> str:
        """A junction's part: parenthesised when it is a junction itself."""
        text = self.predicate(predicate)
        match predicate:
            case Junction():
                return f"({text})"
            case Compare() | Between() | Member() | Test() | StartsWith() | Not():
                return text
            case _:
                assert_never(predicate)


def _operator(op: ArithmeticOp) -> tuple[str, int]:
    """An operator's sign and how tightly it binds."""
    match op:
        case ArithmeticOp.ADD:
            return "+", 1
        case ArithmeticOp.SUBTRACT:
            return "-", 1
        case ArithmeticOp.MULTIPLY:
            return "*", 2
        case ArithmeticOp.DIVIDE:
            return "/", 2
        case _:
            assert_never(op)


def _comparison(op: Comparison) -> str:
    match op:
        case Comparison.EQUALS:
            return "="
        case Comparison.NOT_EQUALS:
            return "!="
        case Comparison.LESS_THAN:
            return "<"
        case Comparison.AT_MOST:
            return "<="
        case Comparison.GREATER_THAN:
            return ">"
        case Comparison.AT_LEAST:
            return ">="
        case _:
            assert_never(op)


def _membership(op: Membership) -> str:
    match op:
        case Membership.IN:
            return "in"
        case Membership.NOT_IN:
            return "not in"
        case _:
            assert_never(op)


def _check(check: Check) -> str:
    match check:
        case Check.IS_NULL:
            return "is null"
        case Check.IS_NOT_NULL:
            return "is not null"
        case Check.IS_TRUE:
            return "is true"
        case _:
            assert_never(check)
