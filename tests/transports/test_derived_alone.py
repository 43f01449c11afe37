"""A derived metric answers the value it has alone, whatever else the question asks
(docs/semantics.md, "Which rows an answer has"): asked beside a metric of one of its leaves'
models, that metric's rows must not lend the leaf a group it counts no row of.

``tot`` sums ``paid`` (orders, only those paid) and ``visitors`` (visits). Region ``''`` holds
one order whose status is unknown (``paid`` counts no row there) and two visitors: alone,
``tot`` has no ``paid`` row of that region — a referent on another model without a row of the
group is NULL — so ``tot`` is NULL there. ``revenue`` (orders, any status but void) counts that
order; asked beside it, ``paid`` shows ``0`` in that region (a count over nothing, where another
metric brings the group in), and ``tot`` must still be NULL, not ``0 + 2``.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import duckdb
import pytest

from tests.engines import ENGINES, Deployed, Rows, answer_of, deployed_on, outcomes

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_DERIVED_ALONE_TEST_PASSWORD"
DATA: Final = (
    "CREATE TABLE alone_orders (id INTEGER, day DATE, region VARCHAR, amount DECIMAL(10,2),"
    " status VARCHAR)",
    "INSERT INTO alone_orders VALUES (1, DATE '2024-01-05', 'east', 10.00, 'paid'),"
    " (2, DATE '2024-02-01', '', 7.50, NULL), (3, DATE '2024-03-01', 'west', 2.00, 'paid'),"
    " (4, DATE '2024-03-02', 'west', 4.00, 'void')",
    "CREATE TABLE alone_visits (id INTEGER, day DATE, region VARCHAR, visitors INTEGER)",
    "INSERT INTO alone_visits VALUES (1, DATE '2024-01-01', 'east', 4),"
    " (2, DATE '2024-02-01', '', 2), (3, DATE '2024-03-01', 'west', 1),"
    " (4, DATE '2024-04-01', 'north', 3)",
)


def _model(name: str, columns: str) -> str:
    return (
        f"---\nkind: model\nname: {name}\nsource: main\ntable: alone_{name}\nprimary_key: id\n"
        f"columns:\n{columns}---\n"
    )


def _metric(name: str, model: str, measure: str, required: str = "") -> str:
    return (
        f"---\nkind: metric\nname: {name}\nmodel: {model}\nmeasure:\n  simple: {measure}\n"
        f"time_column: day\ngrains: [month, year]\n{required}"
        "dimensions:\n  - {name: region, column: region}\naudience: open\n---\n"
    )


DOCUMENTS: Final = {
    "orders": _model(
        "orders",
        "  - {name: id, type: INTEGER}\n  - {name: day, type: DATE}\n"
        "  - {name: region, type: VARCHAR}\n  - {name: amount, type: 'DECIMAL(10,2)'}\n"
        "  - {name: status, type: VARCHAR}\n",
    ),
    "visits": _model(
        "visits",
        "  - {name: id, type: INTEGER}\n  - {name: day, type: DATE}\n"
        "  - {name: region, type: VARCHAR}\n  - {name: visitors, type: INTEGER}\n",
    ),
    "revenue": _metric(
        "revenue",
        "orders",
        "{aggregate: sum, column: amount}",
        "required_filters:\n  - not_equals: {column: status, value: void}\n",
    ),
    "paid": _metric(
        "paid",
        "orders",
        "{aggregate: count}",
        "required_filters:\n  - equals: {column: status, value: paid}\n",
    ),
    "visitors": _metric("visitors", "visits", "{aggregate: sum, column: visitors}"),
    "tot": (
        "---\nkind: metric\nname: tot\nderived: {op: sum, of: [paid, visitors]}\n"
        "grains: [month, year]\ndimensions: [region]\naudience: open\n---\n"
    ),
    "paid_per_visitor": (
        "---\nkind: metric\nname: paid_per_visitor\n"
        "derived: {op: ratio, of: [paid, visitors], zero_denominator: yields_null}\n"
        "grains: [month, year]\ndimensions: [region]\naudience: open\n---\n"
    ),
}


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "shop.duckdb"
    with duckdb.connect(str(data)) as connection:
        for statement in DATA:
            connection.execute(statement)
    with deployed_on(
        request, tmp_path, data, DOCUMENTS, version="alone-1", password_var=PASSWORD_VAR
    ) as found:
        yield found


Answered = tuple[list[str], Rows]
"""An answer's columns and rows."""


async def _answers(deployed: Deployed, *questions: dict[str, object]) -> list[Answered]:
    """Each question's columns and rows, asked of one service."""
    return [
        (list(answer.columns), [list(row) for row in answer.rows])
        for answer in map(answer_of, await outcomes(deployed, *questions))
    ]


def _by(metrics: list[str], **rest: object) -> dict[str, object]:
    return {"metrics": metrics, "range": {"start": "2024-01-01", "end": "2025-01-01"}, **rest}


async def test_a_derived_metric_keeps_its_value_alone_beside_a_metric_of_its_leaf_s_model(
    deployed: Deployed,
) -> None:
    alone, beside, everything = await _answers(
        deployed,
        _by(["tot"], dimensions=["region"]),
        _by(["tot", "revenue"], dimensions=["region"]),
        _by(["paid", "tot", "paid_per_visitor", "revenue"], dimensions=["region"]),
    )
    assert alone[1] == [["", None], ["east", "5"], ["north", None], ["west", "2"]]
    assert [row[:2] for row in beside[1]] == alone[1]
    assert beside[1][0] == ["", None, "7.50"]
    columns, rows = everything
    assert columns == ["region", "paid", "tot", "paid_per_visitor", "revenue"]
    # paid is 0 where revenue brings the region in; tot and the ratio are as alone.
    assert rows[0] == ["", "0", None, None, "7.50"]
    assert rows[1] == ["east", "1", "5", "0.250000", "10.00"]


async def test_by_period_too(deployed: Deployed) -> None:
    alone, beside = await _answers(
        deployed, _by(["tot"], grain="month"), _by(["revenue", "tot"], grain="month")
    )
    assert [[row[0], row[2]] for row in beside[1]] == alone[1]
    assert dict((row[0], row[1]) for row in alone[1])["2024-02-01"] is None
