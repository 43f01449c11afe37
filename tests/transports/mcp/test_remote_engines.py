"""``/mcp`` under multi-user, on DuckDB and PostgreSQL: an inbound access token is the caller,
its audiences decide the ``initialize`` instructions and what ``ask_metric`` may see, and an
answer over ``/mcp`` is the ``/v1/query`` answer."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from litestar import Litestar

from tests.transports.http.deployments import assembled
from tests.transports.http.inbound_deployment import multi_user_on
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION, structured_of
from tests.transports.mcp.remote import LEGACY, LIST_TOOLS, http_of, mcp_client

pytestmark = pytest.mark.anyio

PAIR = KeyPair("k1")


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
async def app(
    request: pytest.FixtureRequest, example_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Litestar]:
    """The multi-user deployment on each engine."""
    root = tmp_path_factory.mktemp(f"remote-{request.param}")
    with multi_user_on(request.param, root, example_dir, PAIR, request) as (config, secrets):
        async with assembled(config, **secrets) as started:
            yield started.app


def _as(groups: list[str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(PAIR, claims(groups=groups))}"}


async def test_each_caller_is_told_and_answered_about_the_catalog_it_sees(app: Litestar) -> None:
    hidden: dict[str, Any] = {**EXAMPLE_QUESTION, "metrics": ["return_rate"]}
    with anyio.fail_after(60):
        async with http_of(app, _as(["staff"])) as http, mcp_client(http) as staff:
            staff_told = staff.instructions or ""
            refused = await staff.call_tool("ask_metric", hidden)
            answered = await staff.call_tool("ask_metric", EXAMPLE_QUESTION)
            v1 = await http.post("/v1/query", json=EXAMPLE_QUESTION)
        async with http_of(app, _as(["finance-team"])) as http, mcp_client(http) as finance:
            finance_told = finance.instructions or ""
            allowed = await finance.call_tool("ask_metric", hidden)
    shown = "\nmetric: return_rate\n"  # the prompt's entry for the metric (prose may name it)
    assert shown not in staff_told and shown in finance_told
    assert structured_of(refused)["reason"]["code"] == "metric_unknown"
    assert structured_of(allowed)["outcome"] == "answer"
    assert structured_of(answered) == v1.json()


async def test_a_request_without_a_valid_access_token_never_reaches_the_tools(
    app: Litestar,
) -> None:
    async with http_of(app, LEGACY) as http:
        missing = await http.post("/mcp", json=LIST_TOOLS)
        forged = await http.post(
            "/mcp", json=LIST_TOOLS, headers={"Authorization": "Bearer not.a.token"}
        )
    for response in (missing, forged):
        assert response.status_code == 401 and response.json()["code"] == "unauthorized"
        assert response.headers["www-authenticate"].startswith("Bearer resource_metadata=")
