"""An expression read from another model: every column reached along a path first.

A dimension declared on a model reads from that model; a metric of another model that reaches
it along ``many_to_one`` relationships reads the same values through that path. Re-rooting puts
the path in front of every column's ``via`` chain, and changes nothing else (constants stay as
settled, operands keep their order).

>>> from sutura.core.expression.nodes import Column, DatePart, Part
>>> rerooted(DatePart(part=Part.YEAR, of=Column(name="signed_up_on")), ("order_customer",))
DatePart(part=<Part.YEAR: 'year'>, of=Column(name='signed_up_on', via=('order_customer',)))
"""

from typing import assert_never

from sutura.core.expression.nodes import (
    Arithmetic,
    Between,
    Branch,
    Buckets,
    Case,
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

Path = tuple[str, ...]
"""Relationships walked in order from the metric's model to the model an expression reads."""


def rerooted(expr: Expr, path: Path) -> Expr:
    """``expr`` as read from the model ``path`` starts at (the same tree for an empty path)."""
    if not path:
        return expr
    match expr:
        case Column():
            return Column(name=expr.name, via=(*path, *expr.via))
        case Constant():
            return expr
        case Arithmetic():
            return Arithmetic(op=expr.op, operands=tuple(rerooted(o, path) for o in expr.operands))
        case Negate():
            return Negate(of=rerooted(expr.of, path))
        case Coalesce():
            return Coalesce(of=tuple(rerooted(o, path) for o in expr.of))
        case Case():
            branches = tuple(
                Branch(when=rerooted_predicate(b.when, path), then=rerooted(b.then, path))
                for b in expr.branches
            )
            return Case(branches=branches, otherwise=rerooted(expr.otherwise, path))
        case DatePart():
            return DatePart(part=expr.part, of=rerooted(expr.of, path))
        case Buckets():
            return Buckets(of=rerooted(expr.of, path), edges=expr.edges, labels=expr.labels)
        case _:
            assert_never(expr)


def rerooted_predicate(predicate: Predicate, path: Path) -> Predicate:
    """``predicate`` as read from the model ``path`` starts at."""
    match predicate:
        case Compare():
            left, right = rerooted(predicate.left, path), rerooted(predicate.right, path)
            return Compare(op=predicate.op, left=left, right=right)
        case Between():
            return Between(
                value=rerooted(predicate.value, path),
                low=rerooted(predicate.low, path),
                high=rerooted(predicate.high, path),
            )
        case Member():
            candidates = tuple(rerooted(c, path) for c in predicate.candidates)
            value = rerooted(predicate.value, path)
            return Member(op=predicate.op, value=value, candidates=candidates)
        case Test():
            return Test(check=predicate.check, of=rerooted(predicate.of, path))
        case StartsWith():
            value, prefix = rerooted(predicate.value, path), rerooted(predicate.prefix, path)
            return StartsWith(value=value, prefix=prefix)
        case Junction():
            of = tuple(rerooted_predicate(p, path) for p in predicate.of)
            return Junction(op=predicate.op, of=of)
        case Not():
            return Not(of=rerooted_predicate(predicate.of, path))
        case _:
            assert_never(predicate)
