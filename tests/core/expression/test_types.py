"""The result types of arithmetic and the types a node chooses between: exact decimal scales,
and the results Spark could not keep refused."""

import pytest

from sutura.core.expression.arithmetic import common_type, product_type, quotient_type, sum_type
from sutura.core.expression.types import Family, SqlType, declared_type, shown_type

INT = SqlType(family=Family.INTEGER)
FLOAT = SqlType(family=Family.FLOAT)


def _dec(precision: int, scale: int) -> SqlType:
    return SqlType(family=Family.DECIMAL, precision=precision, scale=scale)


@pytest.mark.parametrize(
    ("left", "right", "summed", "multiplied", "divided"),
    [
        (INT, INT, "integer", "integer", "decimal(26,6)"),
        (_dec(15, 2), _dec(15, 2), "decimal(16,2)", "decimal(30,4)", "decimal(21,6)"),
        (_dec(15, 2), INT, "decimal(23,2)", "decimal(35,2)", "decimal(19,6)"),
        (_dec(8, 3), _dec(4, 1), "decimal(9,3)", "decimal(12,4)", "decimal(12,6)"),
        (_dec(15, 2), FLOAT, "float", "float", "float"),
        (_dec(10, 8), _dec(2, 2), "decimal(11,8)", "decimal(12,10)", "decimal(12,8)"),
    ],
)
def test_arithmetic_keeps_exact_scale(
    left: SqlType, right: SqlType, summed: str, multiplied: str, divided: str
) -> None:
    assert [shown_type(t) for t in (sum_type(left, right), product_type(left, right))] == [  # type: ignore[arg-type]
        summed,
        multiplied,
    ]
    assert shown_type(quotient_type(left, right)) == divided


def test_a_result_spark_would_cut_is_refused_by_name() -> None:
    problem = product_type(_dec(30, 5), _dec(15, 2))
    assert isinstance(problem, str) and "Spark would cut the scale" in problem
    assert product_type(_dec(38, 2), _dec(38, 2)) == _dec(38, 4)  # scale 4: Spark keeps it


def test_values_of_one_node_meet_in_one_type() -> None:
    assert common_type(_dec(15, 2), _dec(8, 3)) == _dec(16, 3)
    assert common_type(INT, _dec(8, 3)) == _dec(23, 3)
    assert common_type(SqlType(family=Family.TEXT), INT) is None


def test_declared_types_read_as_every_engine_spells_them() -> None:
    assert declared_type("CHAR(10)") == SqlType(family=Family.TEXT, padded=True)
    assert declared_type("VARCHAR(25)") == SqlType(family=Family.TEXT)
    assert declared_type("timestamp with time zone") == SqlType(family=Family.TIMESTAMP)
    assert declared_type("NUMERIC") == SqlType(family=Family.DECIMAL)
    assert declared_type("INTERVAL") is None
