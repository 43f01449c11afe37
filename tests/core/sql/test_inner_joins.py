"""A relationship is joined INNER only where WHERE would drop a row without a match anyway: the
time column's chain, and a chain a shared required filter rejects a NULL along."""

import pytest

from sutura.core.expression.nodes import (
    Check,
    Column,
    Compare,
    Comparison,
    Connective,
    Constant,
    ConstantKind,
    Junction,
    Member,
    Membership,
    Not,
    Predicate,
)
from sutura.core.expression.nodes import Test as ValueTest
from sutura.core.sql.reads import rejected_chains

PART = ("lineitem_part",)
ORDER = ("lineitem_order",)
P_TYPE = Column(name="p_type", via=PART)
O_DATE = Column(name="o_orderdate", via=ORDER)
TEXT = Constant(kind=ConstantKind.TEXT, text="x")


@pytest.mark.parametrize(
    ("predicate", "chains"),
    [
        (Compare(op=Comparison.EQUALS, left=P_TYPE, right=TEXT), {PART}),
        (Compare(op=Comparison.NOT_EQUALS, left=P_TYPE, right=TEXT), set()),
        (Member(op=Membership.IN, value=P_TYPE, candidates=(TEXT,)), {PART}),
        (Member(op=Membership.NOT_IN, value=P_TYPE, candidates=(TEXT,)), set()),
        (ValueTest(check=Check.IS_NOT_NULL, of=P_TYPE), {PART}),
        (ValueTest(check=Check.IS_NULL, of=P_TYPE), set()),
        (Not(of=ValueTest(check=Check.IS_NULL, of=P_TYPE)), set()),
        (
            Junction(
                op=Connective.AND,
                of=(
                    ValueTest(check=Check.IS_NOT_NULL, of=P_TYPE),
                    ValueTest(check=Check.IS_TRUE, of=O_DATE),
                ),
            ),
            {PART, ORDER},
        ),
        (
            Junction(
                op=Connective.OR,
                of=(
                    ValueTest(check=Check.IS_NOT_NULL, of=P_TYPE),
                    ValueTest(check=Check.IS_TRUE, of=O_DATE),
                ),
            ),
            set(),
        ),
    ],
)
def test_a_chain_is_rejected_only_where_a_null_along_it_makes_the_filter_false(
    predicate: Predicate, chains: set[tuple[str, ...]]
) -> None:
    assert rejected_chains(predicate) == chains
