"""Audiences on every engine: the same two callers see the same two catalogs on DuckDB and on
PostgreSQL, a hidden metric is refused before any source is asked (byte-identical to a missing
one), and a visible restricted metric is answered alike on both."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import multi_user_on
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION

pytestmark = pytest.mark.anyio

PAIR = KeyPair("k1")


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
async def http(
    request: pytest.FixtureRequest,
    example_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[httpx.AsyncClient]:
    """The multi-user deployment on each engine."""
    root = tmp_path_factory.mktemp(f"audiences-{request.param}")
    with multi_user_on(request.param, root, example_dir, PAIR, request) as (config, secrets):
        async with assembled(config, **secrets) as started, client(started.app) as http:
            yield http


def _as(groups: list[str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(PAIR, claims(groups=groups))}"}


def _asking(metric: str) -> dict[str, Any]:
    return {**EXAMPLE_QUESTION, "metrics": [metric]}


async def test_callers_see_their_catalogs_and_a_hidden_metric_is_a_missing_one(
    http: httpx.AsyncClient,
) -> None:
    staff = await http.get("/v1/catalog", headers=_as(["staff"]))
    finance = await http.get("/v1/catalog", headers=_as(["finance-team"]))
    staff_names = {m["name"] for m in staff.json()["metrics"]}
    finance_names = {m["name"] for m in finance.json()["metrics"]}
    assert finance_names - staff_names == {"return_rate"}
    same_id = {**_as(["staff"]), "X-Request-Id": "audience-probe"}  # headers compared whole
    hidden = await http.post("/v1/query", json=_asking("return_rate"), headers=same_id)
    missing = await http.post("/v1/query", json=_asking("nothing"), headers=same_id)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.content == missing.content
    # Alike but for each response's own request id.
    assert [h for h in hidden.headers.multi_items() if h[0] != "x-request-id"] == [
        h for h in missing.headers.multi_items() if h[0] != "x-request-id"
    ]


ANSWERS: dict[str, object] = {}


async def test_a_visible_restricted_metric_is_answered_alike_on_every_engine(
    http: httpx.AsyncClient, request: pytest.FixtureRequest
) -> None:
    answered = await http.post(
        "/v1/query", json=_asking("return_rate"), headers=_as(["finance-team"])
    )
    assert answered.status_code == 200, answered.text
    rows = answered.json()["rows"]
    assert rows
    engine = request.node.callspec.params["http"]
    ANSWERS[engine] = rows
    if len(ANSWERS) == 2:
        assert ANSWERS["duckdb"] == ANSWERS["postgres"]
