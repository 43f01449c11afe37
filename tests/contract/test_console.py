"""Every row of the contract through the web console's agent view: the text is the MCP
result's, byte for byte, and the body is the ``/v1`` route's, byte for byte, on DuckDB and on
PostgreSQL (the console only shows what the agent receives; it decides nothing)."""

import json
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any, NamedTuple

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from sutura.root import Wiring
from sutura.transports.mcp.server import mcp_server
from tests.contract.deployment import Deployment
from tests.contract.expect import check_nothing_leaked
from tests.contract.rows import ROWS
from tests.contract.table import CallerKind, Channel, Row, Surface, row_id, v1_request
from tests.transports.http.deployments import AUTH, assembled, client
from tests.transports.mcp.inprocess import text_of

pytestmark = pytest.mark.anyio

# The console's caller is the deployment's one identity, holding every scope. The deadline rows
# are left to the surfaces' own modules: each costs three full deadlines here, and their reply
# is mapped exactly as every other refusal's.
CONSOLE_ROWS = [
    row
    for row in ROWS
    if row.caller is not CallerKind.WITHOUT_SCOPE and "deadline_exceeded" not in row.name
]


class Surfaces(NamedTuple):
    """The HTTP app and the MCP server of the deployment, as is and with ``run_sql`` off."""

    http: httpx.AsyncClient
    http_off: httpx.AsyncClient
    mcp: Client
    mcp_off: Client


def _extra(deployment: Deployment, **more: str) -> dict[str, str]:
    return {k: v for k, v in deployment.environ.items() if k != "SUTURA_CONFIG_DIR"} | more


@pytest.fixture(scope="module")
async def surfaces(deployment: Deployment) -> AsyncIterator[Surfaces]:
    """Both apps and both MCP servers, opened once for the module."""
    off = {"SUTURA__TOOLS__RUN_SQL__ENABLED": "false", "SUTURA__SERVER__CONSOLE": "true"}
    on = {"SUTURA__SERVER__CONSOLE": "true"}
    async with AsyncExitStack() as stack:
        served = await stack.enter_async_context(
            assembled(deployment.config, **_extra(deployment, **on))
        )
        without_sql = await stack.enter_async_context(
            assembled(deployment.config, **_extra(deployment, **off))
        )
        http = await stack.enter_async_context(client(served.app))
        http_off = await stack.enter_async_context(client(without_sql.app))
        servers = [
            mcp_server(Wiring(deployment.environ).load()),
            mcp_server(Wiring(deployment.with_settings(TOOLS__RUN_SQL__ENABLED="false")).load()),
        ]
        mcp, mcp_off = [
            await stack.enter_async_context(Client(s.unwrap().server, mode="legacy"))
            for s in servers
        ]
        yield Surfaces(http, http_off, mcp, mcp_off)


async def _v1(http: httpx.AsyncClient, row: Row) -> httpx.Response:
    method, path, sent = v1_request(row)
    return await http.request(method, path, headers=AUTH, **sent)


async def _mcp_text(mcp: Client, row: Row) -> tuple[str, str]:
    """How MCP carries the row (the console's channel name) and its text."""
    arguments = row.arguments if row.arguments is not None else {}
    try:
        result = await mcp.call_tool(row.capability.value, arguments)
    except MCPError as error:
        return "invalid_params", error.message
    return ("error_result" if result.is_error else "result"), text_of(result)


@pytest.mark.parametrize("row", CONSOLE_ROWS, ids=row_id)
async def test_the_console_shows_every_row_exactly_as_mcp_and_http_carry_it(
    surfaces: Surfaces, row: Row
) -> None:
    http = surfaces.http if row.run_sql else surfaces.http_off
    mcp = surfaces.mcp if row.run_sql else surfaces.mcp_off
    body = b"" if row.arguments is None else json.dumps(row.arguments).encode()
    with anyio.fail_after(30):
        shown = await http.post(
            f"/console/agent/{row.capability.value}", content=body, headers=AUTH
        )
        channel, text = await _mcp_text(mcp, row)
    assert shown.status_code == 200, shown.text[:300]
    view: dict[str, Any] = shown.json()
    assert (view["mcp_channel"], view["text"]) == (channel, text)
    expected_channel = {
        Channel.RESULT: "result",
        Channel.IS_ERROR: "error_result",
        Channel.INVALID_PARAMS: "invalid_params",
    }[row.mcp.channel]
    assert view["mcp_channel"] == expected_channel
    assert view["http_status"] == row.http.status
    if Surface.HTTP not in row.unsendable:
        with anyio.fail_after(30):
            sent = await _v1(http, row)
        assert (view["http_status"], view["http_body"].encode("utf-8")) == (
            sent.status_code,
            sent.content,
        )
    check_nothing_leaked(shown.text)
