"""A dimension computed from a ``CHAR(n)`` column answers the same text on DuckDB, PostgreSQL and
Spark, through the Python API: ``coalesce`` and ``case`` over a column PostgreSQL and Spark hold
as ``CHAR(8)`` (and pad with blanks) show its values without the padding, whether the catalog
declares the column ``CHAR(8)`` or ``VARCHAR`` (as the example declares ``sales_region``, which
a warehouse loaded from TPC-H's DDL holds as ``CHAR(n)``); a filter ``eq`` on such a value finds
its rows, and ``list_values`` lists the values as answers show them (docs/semantics.md).

A ``CHAR(n)`` column is unpadded once, in the statement, whether or not it declares a type: a
``VARCHAR`` value whose data ends in blanks of its own keeps them, even asked beside such a
column.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Final

import anyio
import duckdb
import psycopg
import pytest

from sutura import api
from sutura.core.tool.capability import Capability
from tests.engines import ENGINES, Deployed, deployed_on, outcomes

pytestmark = pytest.mark.anyio

PASSWORD_VAR: Final = "SUTURA_FIXED_LENGTH_TEST_PASSWORD"
# Two days of three shops; one shop has no region. PostgreSQL holds both texts as CHAR(8), and
# so does Spark (tests.spark_server.FIXED_LENGTH).
ROWS: Final = (
    "CREATE TABLE fixed_shops AS SELECT DATE '2024-01-01' + (i % 2)::INTEGER AS day,"
    " CASE i % 3 WHEN 0 THEN 'east' WHEN 1 THEN 'west' END AS region,"
    " CASE i % 3 WHEN 0 THEN 'east' WHEN 1 THEN 'west' END AS declared_region,"
    " CASE i % 3 WHEN 0 THEN 'east' WHEN 1 THEN 'west' END AS bare_region,"
    " (1 + i)::INTEGER AS units FROM range(12) AS t(i)"
)
# Visitors of two regions, held as VARCHAR on every engine: one value ends in blanks of its own.
VISITS: Final = (
    "CREATE TABLE fixed_visits AS SELECT * FROM (VALUES"
    " (DATE '2024-01-01', 'east  ', 5), (DATE '2024-01-02', 'west', 7))"
    " AS t(day, region, visitors)"
)
FIXED_LENGTH: Final = (
    "ALTER TABLE fixed_shops ALTER COLUMN region TYPE char(8)",
    "ALTER TABLE fixed_shops ALTER COLUMN declared_region TYPE char(8)",
    "ALTER TABLE fixed_shops ALTER COLUMN bare_region TYPE char(8)",
)
MODEL: Final = """---
kind: model
name: shops
source: main
table: fixed_shops
columns:
  - {name: day, type: DATE}
  - {name: region, type: VARCHAR}
  - {name: declared_region, type: CHAR(8)}
  - {name: bare_region}
  - {name: units, type: INTEGER}
---
"""
METRIC: Final = """---
kind: metric
name: units
model: shops
measure:
  simple: {aggregate: sum, column: units}
time_column: day
grains: [year]
dimensions:
  - {name: region, column: region}
  - {name: bare_region, column: bare_region}
  - name: region_or_none
    expression: {coalesce: [{column: region}, none]}
    type: text
  - name: busy_region
    expression:
      case:
        - {when: {greater_than: [{column: units}, 4]}, then: {column: region}}
        - {else: quiet}
    type: text
  - name: declared_or_none
    expression: {coalesce: [{column: declared_region}, none]}
    type: text
audience: open
---
"""
VISITS_MODEL: Final = """---
kind: model
name: visits
source: main
table: fixed_visits
columns:
  - {name: day, type: DATE}
  - {name: region, type: VARCHAR}
  - {name: visitors, type: INTEGER}
---
"""
VISITS_METRIC: Final = """---
kind: metric
name: visitors
model: visits
measure:
  simple: {aggregate: sum, column: visitors}
time_column: day
grains: [year]
dimensions:
  - {name: region, column: region}
  - {name: bare_region, column: region}
audience: open
---
"""
FOOTFALL: Final = """---
kind: metric
name: footfall
derived: {op: sum, of: [units, visitors]}
grains: [year]
dimensions: [region]
audience: open
---
"""
# ``footfall`` over shops' ``bare_region`` (no declared type) and the visits' own region.
BARE_FOOTFALL: Final = """---
kind: metric
name: bare_footfall
derived: {op: sum, of: [units, visitors]}
grains: [year]
dimensions: [bare_region]
audience: open
---
"""
EXPRESSIONS: Final = ("region_or_none", "busy_region", "declared_or_none")
# Columns read as they are, but for the padding: ``region`` (declared VARCHAR) and
# ``bare_region`` (no declared type), both trimmed in the statement on PostgreSQL and Spark.
COLUMNS: Final = ("region", "bare_region")
# What DuckDB, which has no CHAR(n), answers: units 1..12, day by i % 2, region by i % 3.
EXPECTED: Final[dict[str, list[list[str | None]]]] = {
    "region_or_none": [["east", "22"], ["none", "30"], ["west", "26"]],
    "busy_region": [["east", "17"], ["quiet", "10"], ["west", "24"], [None, "27"]],
    "declared_or_none": [["east", "22"], ["none", "30"], ["west", "26"]],
    "region": [["east", "22"], ["west", "26"], [None, "30"]],
    "bare_region": [["east", "22"], ["west", "26"], [None, "30"]],
}


DOCUMENTS: Final = {
    "shops": MODEL,
    "units": METRIC,
    "visits": VISITS_MODEL,
    "visitors": VISITS_METRIC,
    "footfall": FOOTFALL,
    "bare_footfall": BARE_FOOTFALL,
}


def _fixed_length(admin_dsn: str) -> None:
    """The copied columns PostgreSQL holds as ``CHAR(n)``."""
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        for statement in FIXED_LENGTH:
            admin.execute(statement)


@pytest.fixture(params=ENGINES)
def deployed(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Deployed]:
    """The settings directory on each engine, and the environment it reads."""
    data = tmp_path / "shops.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute(ROWS)
        connection.execute(VISITS)
    with deployed_on(
        request,
        tmp_path,
        data,
        DOCUMENTS,
        version="fixed-1",
        password_var=PASSWORD_VAR,
        on_postgres=_fixed_length,
    ) as found:
        yield found


def _question(dimension: str, **extra: object) -> dict[str, object]:
    return {
        "metrics": ["units"],
        "dimensions": [dimension],
        "grain": "year",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        **extra,
    }


def _rows(outcome: object) -> list[list[str | None]]:
    assert isinstance(outcome, api.Answer), outcome
    return [list(row[1:]) for row in outcome.rows]  # without the period


async def test_an_expression_over_a_char_column_answers_its_values_without_padding(
    deployed: Deployed,
) -> None:
    await _answered_unpadded(deployed, EXPRESSIONS)


async def test_a_char_column_answers_its_values_without_padding_whatever_it_declares(
    deployed: Deployed,
) -> None:
    await _answered_unpadded(deployed, COLUMNS)


async def _answered_unpadded(deployed: Deployed, names: tuple[str, ...]) -> None:
    """Each dimension of ``names`` answers, filters and lists its values as DuckDB does."""
    config, environ = deployed
    with anyio.fail_after(120):
        async with api.opened(config, environ=environ, anchors=False) as started:
            service = started.unwrap()
            for name in names:
                answered = await api.call(service, Capability.ASK_METRIC, _question(name))
                assert _rows(api.outcome_of(answered)) == EXPECTED[name], name
                east = {"dimension": name, "op": "eq", "value": "east"}
                filtered = await api.call(
                    service, Capability.ASK_METRIC, _question(name, filters=[east])
                )
                assert _rows(api.outcome_of(filtered)) == [EXPECTED[name][0]], name
                request = api.ValuesRequest(metric="units", dimension=name)
                page = api.values_of(await api.call(service, Capability.LIST_VALUES, request))
                assert isinstance(page, api.Values), page
                assert page.values == [row[0] for row in EXPECTED[name]], name


async def test_a_varchar_value_ending_in_blanks_keeps_them_beside_a_char_column(
    deployed: Deployed,
) -> None:
    # ``footfall`` adds shops' units and visitors by region, each model grouped alone and the
    # two joined on region. Shops' ``region`` is held CHAR(8) (declared VARCHAR): the statement
    # trims it. The visits' own ``region`` (VARCHAR) keeps 'east  ' as the data holds it, a
    # region apart from the shops' 'east', as DuckDB answers.
    (answered,) = await outcomes(deployed, _question("region", metrics=["footfall"]))
    # A region one side lacks has no sum; the two easts are two regions.
    assert _rows(answered) == [
        ["east", None],
        ["east  ", None],
        ["west", "33"],
        [None, None],
    ]


async def test_a_varchar_value_ending_in_blanks_keeps_them_beside_an_untyped_char_column(
    deployed: Deployed,
) -> None:
    # ``bare_footfall`` joins shops' ``bare_region`` (held CHAR(8), no declared type) with the
    # visits' region (VARCHAR, holding 'east  '): the statement trims the one, not the other,
    # so the two easts stay two regions on every engine, as DuckDB answers.
    question = _question("bare_region", metrics=["bare_footfall"])
    east = {"dimension": "bare_region", "op": "eq", "value": "east"}
    answered, filtered = await outcomes(deployed, question, {**question, "filters": [east]})
    assert _rows(answered) == [
        ["east", None],
        ["east  ", None],
        ["west", "33"],
        [None, None],
    ]
    assert _rows(filtered) == [["east", None]]
