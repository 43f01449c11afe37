"""A deadline on Spark through the HTTP API: the refusal comes on time, the interrupted query
stops on the server, and the next question on the same service answers promptly."""

from pathlib import Path
from typing import Any, Final

import anyio
import msgspec
import pytest

from sutura.core.nouns.refusal import RefusalCode
from tests.spark_server import require_server, session
from tests.transports.http.deployments import AUTH, TOKEN, assembled, client, refusal_of

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.spark,
    pytest.mark.filterwarnings(r"ignore:\[RETRIES_EXCEEDED\]:UserWarning"),
]

# Ten trillion small numbers (their sum never overflows) summed over both executor slots of
# the test server: never done in time.
_SLOW_VIEW: Final = (
    "CREATE OR REPLACE VIEW spark_deadline_slow AS"
    " SELECT DATE'2024-01-15' AS ordered_on, id % 7 AS amount FROM range(0, 10000000000000)"
)
# Two partitions: answered only once no interrupted query holds the slots.
_QUICK_VIEW: Final = (
    "CREATE OR REPLACE VIEW spark_deadline_quick AS"
    " SELECT DATE'2024-01-15' AS ordered_on, id AS amount FROM range(0, 1000000, 1, 2)"
)
_MODEL: Final = """---
kind: model
name: {name}_orders
source: main
table: spark_deadline_{name}
columns: [ordered_on, amount]
---
"""
_METRIC: Final = """---
kind: metric
name: {name}_total
model: {name}_orders
measure:
  simple:
    aggregate: sum
    column: amount
time_column: ordered_on
grains: [month]
dimensions: []
audience: open
---
"""


def _deployment(root: Path, remote: str) -> Path:
    """A service on Spark, with a deadline of eight seconds (room for a quick question on a loaded
    machine), over one slow and one quick view."""
    spark = session(remote)
    for view in (_SLOW_VIEW, _QUICK_VIEW):
        spark.sql(view).collect()
    catalog = root / "catalog"
    catalog.mkdir(parents=True)
    for name in ("slow", "quick"):
        (catalog / f"{name}_orders.md").write_text(_MODEL.format(name=name), encoding="utf-8")
        (catalog / f"{name}_total.md").write_text(_METRIC.format(name=name), encoding="utf-8")
    settings = {
        "catalog": {"dir": "catalog"},
        "sources": {"main": {"kind": "spark", "remote": remote}},
        "limits": {"deadline_seconds": 8},
        "security": {
            "identity": "single-user",
            "single_user_because": "one user runs the tests",
            "access_token": TOKEN,
        },
    }
    (root / "base.yaml").write_text(msgspec.json.encode(settings).decode(), encoding="utf-8")
    return root


def _question(name: str) -> dict[str, Any]:
    return {
        "metrics": [f"{name}_total"],
        "grain": "month",
        "range": {"start": "2024-01-01", "end": "2024-02-01"},
    }


async def test_a_deadline_on_spark_answers_on_time_and_the_next_question_is_prompt(
    tmp_path: Path,
) -> None:
    config = _deployment(tmp_path, require_server())
    async with assembled(config) as started, client(started.app) as http:
        with anyio.fail_after(25):  # eight seconds, and the time to stop the statement
            slow = await http.post("/v1/query", json=_question("slow"), headers=AUTH)
        assert refusal_of(slow).code is RefusalCode.DEADLINE_EXCEEDED, slow.text[:300]
        with anyio.fail_after(30):  # the slots the slow query held are free again
            quick = await http.post("/v1/query", json=_question("quick"), headers=AUTH)
    assert quick.status_code == 200, quick.text[:300]
    assert "499999500000" in quick.text
