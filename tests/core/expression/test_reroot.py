"""Re-rooting: an expression read from another model reaches every column along the path first,
and nothing else about it changes."""

from sutura.core.expression import nodes
from sutura.core.expression.nodes import (
    Between,
    Branch,
    Case,
    Check,
    Column,
    Compare,
    Comparison,
    Connective,
    Constant,
    ConstantKind,
    Junction,
    Not,
    expression_columns,
)
from sutura.core.expression.reroot import rerooted, rerooted_predicate

PATH = ("line_order", "order_customer")


def _text(value: str) -> Constant:
    return Constant(kind=ConstantKind.TEXT, text=value)


def test_every_column_of_a_case_and_its_predicates_is_reached_along_the_path() -> None:
    when = Junction(
        op=Connective.AND,
        of=(
            Compare(op=Comparison.EQUALS, left=Column(name="tier"), right=_text("gold")),
            Not(of=nodes.Test(check=Check.IS_NULL, of=Column(name="since", via=("nation",)))),
        ),
    )
    case = Case(branches=(Branch(when=when, then=Column(name="name")),), otherwise=_text("other"))
    moved = rerooted(case, PATH)
    # the branch's value first, then its predicate's columns
    assert [c.via for c in expression_columns(moved)] == [PATH, PATH, (*PATH, "nation")]
    assert isinstance(moved, Case) and moved.otherwise == _text("other")


def test_an_empty_path_is_the_same_tree_and_a_predicate_keeps_its_bounds() -> None:
    between = Between(value=Column(name="size"), low=_text("1"), high=_text("9"))
    assert rerooted(Column(name="size"), ()) == Column(name="size")
    assert rerooted_predicate(between, ("p",)) == Between(
        value=Column(name="size", via=("p",)), low=_text("1"), high=_text("9")
    )
