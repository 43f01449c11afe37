"""A catalog sutura can already write over the raw TPC-H tables, and its question's official
answer: proof that a deployment over each engine's copy opens (every declared type agrees with
the engine's own, ``CHAR(n)`` and ``DECIMAL(15,2)`` included) and answers cell for cell."""

from pathlib import Path
from typing import Final

from tests.workloads.engines import Cells, Loaded
from tests.workloads.oracle import answer
from tests.workloads.tpch.schema import TABLES

_MODEL: Final = """---
kind: model
name: lineitem
source: main
table: [tpch, lineitem]
columns:
  - {name: l_orderkey, type: BIGINT}
  - {name: l_linenumber, type: INTEGER}
  - {name: l_quantity, type: "DECIMAL(15,2)"}
  - {name: l_shipdate, type: DATE}
  - {name: l_returnflag, type: CHAR(1)}
  - {name: l_comment, type: VARCHAR(44)}
---
"""
_METRIC: Final = """---
kind: metric
name: quantity_shipped
model: lineitem
measure:
  simple: {aggregate: sum, column: l_quantity}
time_column: l_shipdate
grains: [year]
dimensions:
  - {name: return_flag, column: l_returnflag, description: "A, N or R."}
audience: open
---
Quantity shipped.
"""
QUESTION: Final = {
    "metrics": ["quantity_shipped"],
    "grain": "year",
    "range": {"start": "1994-01-01", "end": "1995-01-01"},
    "dimensions": ["return_flag"],
}
"""The question, as its JSON fields."""
_OFFICIAL: Final = """select
    l_returnflag,
    sum(l_quantity) as quantity_shipped
from
    lineitem
where
    l_shipdate >= date '1994-01-01'
    and l_shipdate < date '1995-01-01'
group by
    l_returnflag
order by
    l_returnflag"""


def write_catalog(directory: Path) -> Path:
    """Write the catalog into ``directory`` (created); return it."""
    directory.mkdir(parents=True)
    (directory / "lineitem.md").write_text(_MODEL, encoding="utf-8")
    (directory / "quantity_shipped.md").write_text(_METRIC, encoding="utf-8")
    return directory


def official(on: Loaded) -> Cells:
    """The question's answer by hand-written SQL, without the period column."""
    return answer(_OFFICIAL, on, TABLES)


async def sutura_rows(on: Loaded, root: Path) -> list[list[str | None]]:
    """sutura's answer to the question over ``on`` (a deployment written under ``root``),
    without the period column; the test fails on anything but an answer."""
    from sutura.api import outcome_of, question
    from sutura.core.nouns.answer import Answer
    from sutura.core.tool.capability import Capability
    from tests.services import call, serving
    from tests.workloads.engines import deployment

    catalog = write_catalog(root / "catalog")
    async with serving(deployment(root / "settings", catalog, on)) as service:
        reply = await call(service, Capability.ASK_METRIC, question(QUESTION).unwrap())
    outcome = outcome_of(reply)
    assert isinstance(outcome, Answer), outcome
    assert outcome.columns == ["period", "return_flag", "quantity_shipped"]
    return [list(row[1:]) for row in outcome.rows]
