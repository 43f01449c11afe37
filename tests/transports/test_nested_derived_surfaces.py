"""Metrics on metrics through what a user touches: the cancellation rate (a scaled ratio over a
derived metric) asked beside revenue through the Python API, stdio MCP and the CLI with one
answer, equal to the value computed independently from its leaves asked alone; over HTTP on
DuckDB and PostgreSQL, restricted with its whole tree: hidden from a caller outside the audience
exactly as a missing metric is, answered alike on both engines for a caller inside it."""

import json
import shutil
from collections.abc import AsyncIterator
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import anyio
import duckdb
import httpx
import pytest

from sutura import api
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.core.sql.cells import cell_text
from sutura.core.sql.derive import fixed
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.conformance.pack import EXTRA_CATALOG
from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import multi_user_on
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import connected, structured_of, wiring

TREE = ("cancelled_orders", "placed_orders", "cancellation_rate")
QUESTION: dict[str, Any] = {
    "metrics": ["cancellation_rate", "revenue"],
    "grain": "quarter",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["channel"],
}
PAIR = KeyPair("k1")


def _with_tree(catalog: Path, audience: str | None = None) -> None:
    """The cancellation tree's documents in ``catalog``, restricted to ``audience`` if given."""
    for name in TREE:
        text = (EXTRA_CATALOG / f"{name}.md").read_text(encoding="utf-8")
        if audience is not None:
            text = text.replace("audience: open\n", f"audience: {{restricted: [{audience}]}}\n")
        (catalog / f"{name}.md").write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def nested_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("nested")
    write_example(target, orders=1500)
    _with_tree(target / CATALOG)
    return target


def _expected(
    rows_of: dict[str, list[list[str | None]]],
) -> dict[tuple[str | None, str | None], str | None]:
    """The rate computed from its leaves asked alone: 100 x cancelled / (kept + cancelled)."""
    kept = {(r[0], r[1]): Decimal(r[2] or "0") for r in rows_of["order_count"]}
    cancelled = {(r[0], r[1]): Decimal(r[2] or "0") for r in rows_of["cancelled_orders"]}
    rates: dict[tuple[str | None, str | None], str | None] = {}
    for group in kept.keys() | cancelled.keys():
        placed = kept.get(group, Decimal(0)) + cancelled.get(group, Decimal(0))
        share = Fraction(cancelled.get(group, Decimal(0))) * 100 / Fraction(placed)
        rates[group] = fixed(share.numerator, share.denominator)
    return rates


def test_every_local_surface_gives_the_rate_its_leaves_give(
    nested_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = [api.question(QUESTION).unwrap()] + [
        api.question({**QUESTION, "metrics": [leaf]}).unwrap()
        for leaf in ("order_count", "cancelled_orders", "revenue")
    ]
    together, kept, cancelled, revenue = api.ask(asked, nested_dir).unwrap()
    assert isinstance(together, api.Answer) and isinstance(revenue, api.Answer)
    assert isinstance(kept, api.Answer) and isinstance(cancelled, api.Answer)
    assert together.columns == ["period", "channel", "cancellation_rate", "revenue"]
    leaves = {"order_count": kept, "cancelled_orders": cancelled}
    rates = _expected({name: [list(row) for row in leaf.rows] for name, leaf in leaves.items()})
    assert {(r[0], r[1]): r[2] for r in together.rows} == rates
    assert [[r[0], r[1], r[3]] for r in together.rows] == revenue.rows
    assert len(together.rows) == 12
    code = run_cli(
        ["query", "--question", json.dumps(QUESTION), "--format", "json"],
        Wiring({"SUTURA_CONFIG_DIR": str(nested_dir)}),
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["rows"] == together.rows


@pytest.fixture(scope="module")
def api_rows(nested_dir: Path) -> list[list[str | None]]:
    """The rows the Python API answers (asked in its own event loop)."""
    (answer,) = api.ask([api.question(QUESTION).unwrap()], nested_dir).unwrap()
    assert isinstance(answer, api.Answer)
    return [list(row) for row in answer.rows]


@pytest.mark.anyio
async def test_stdio_mcp_answers_the_rate_beside_revenue_as_the_api_does(
    nested_dir: Path, api_rows: list[list[str | None]]
) -> None:
    with anyio.fail_after(60):
        async with connected(wiring(nested_dir)) as mcp:
            answered = structured_of(await mcp.call_tool("ask_metric", QUESTION))
            described = structured_of(await mcp.call_tool("describe_catalog", {}))
    assert answered["outcome"] == "answer"
    assert answered["rows"] == api_rows
    listed = {m["name"]: m for m in described["metrics"]}
    assert [d["name"] for d in listed["cancellation_rate"]["dimensions"]] == ["region", "channel"]


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
async def http(
    request: pytest.FixtureRequest, example_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    """The multi-user deployment on each engine, the cancellation tree restricted to finance."""
    root = tmp_path_factory.mktemp(f"nested-{request.param}")
    with multi_user_on(request.param, root, example_dir, PAIR, request) as (config, secrets):
        _with_tree(config / "catalog", audience="finance")
        shutil.copy(EXTRA_CATALOG / "closing_spend.md", config / "catalog")
        async with assembled(config, **secrets) as started, client(started.app) as http:
            yield http


def _as(groups: list[str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(PAIR, claims(groups=groups))}", "X-Request-Id": "n"}


ANSWERS: dict[str, object] = {}


@pytest.mark.anyio
async def test_a_restricted_tree_is_hidden_like_a_missing_metric_and_answered_alike(
    http: httpx.AsyncClient, request: pytest.FixtureRequest
) -> None:
    with anyio.fail_after(60):
        staff = await http.get("/v1/catalog", headers=_as(["staff"]))
        hidden = await http.post("/v1/query", json=QUESTION, headers=_as(["staff"]))
        missing = await http.post(
            "/v1/query",
            json={**QUESTION, "metrics": ["nothing", "revenue"]},
            headers=_as(["staff"]),
        )
        answered = await http.post("/v1/query", json=QUESTION, headers=_as(["finance-team"]))
        leaves = {
            leaf: await http.post(
                "/v1/query", json={**QUESTION, "metrics": [leaf]}, headers=_as(["finance-team"])
            )
            for leaf in ("order_count", "cancelled_orders")
        }
    assert not set(TREE) & {m["name"] for m in staff.json()["metrics"]}
    assert hidden.status_code == missing.status_code == 404
    assert hidden.content == missing.content
    assert answered.status_code == 200, answered.text
    rows = answered.json()["rows"]
    rates = _expected({leaf: reply.json()["rows"] for leaf, reply in leaves.items()})
    assert {(r[0], r[1]): r[2] for r in rows} == rates
    ANSWERS[request.node.callspec.params["http"]] = rows
    if len(ANSWERS) == 2:
        assert ANSWERS["duckdb"] == ANSWERS["postgres"]


BALANCE: dict[str, Any] = {
    "metrics": ["closing_spend"],
    "grain": "quarter",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "window": {"trailing": 2},
}
# Each buyer's orders (not cancelled) on their last day of the quarter, summed per quarter.
LAST_DAYS = """
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE), sum(o.amount)
FROM orders AS o
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND o.ordered_on = (
      SELECT max(p.ordered_on) FROM orders AS p
      WHERE p.customer_id IS NOT DISTINCT FROM o.customer_id
        AND p.order_status IS DISTINCT FROM 'cancelled'
        AND date_trunc('quarter', p.ordered_on) = date_trunc('quarter', o.ordered_on))
GROUP BY 1 ORDER BY 1
"""


@pytest.mark.anyio
async def test_a_balance_over_http_is_the_hand_written_one_and_never_windowed(
    http: httpx.AsyncClient, example_dir: Path
) -> None:
    with anyio.fail_after(60):
        windowed = await http.post("/v1/query", json=BALANCE, headers=_as(["staff"]))
        plain = {k: v for k, v in BALANCE.items() if k != "window"}
        answered = await http.post("/v1/query", json=plain, headers=_as(["staff"]))
    assert windowed.status_code == 422
    assert windowed.json()["reason"]["code"] == "window_not_additive"
    assert answered.status_code == 200, answered.text
    with duckdb.connect(str(example_dir / DATABASE), read_only=True) as connection:
        expected = [[cell_text(v) for v in row] for row in connection.execute(LAST_DAYS).fetchall()]
    assert answered.json()["rows"] == expected
