"""Every row of the contract over MCP: the server ``sutura mcp`` composes (``mcp_server``),
in-process through the SDK's own ``Client``, on DuckDB and on PostgreSQL."""

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any, NamedTuple

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from sutura.core.tool.carriage import UNKNOWN_TOOL
from sutura.core.tool.reply import NotOffered
from sutura.root import Wiring
from sutura.transports.mcp.server import mcp_server
from tests.contract.deployment import Deployment
from tests.contract.expect import check_nothing_leaked, check_structured, check_text_half
from tests.contract.rows import ROWS
from tests.contract.table import CallerKind, Channel, Row, row_id, without_scope
from tests.transports.mcp.inprocess import text_of

pytestmark = pytest.mark.anyio


class Clients(NamedTuple):
    """One client per way the deployment is served: as is, with ``run_sql`` off, and to a
    caller without the ``sutura:metrics.ask`` scope."""

    served: Client
    off: Client
    without_scope: Client


@pytest.fixture(scope="module")
async def clients(deployment: Deployment) -> AsyncIterator[Clients]:
    """The three servers and their clients, connected once for the module."""
    off = deployment.with_settings(TOOLS__RUN_SQL__ENABLED="false")
    servers = [
        mcp_server(Wiring(deployment.environ).load()),
        mcp_server(Wiring(off).load()),
        mcp_server(Wiring(deployment.environ).load(), new_caller=without_scope),
    ]
    async with AsyncExitStack() as stack:
        # In-process streams: connecting waits on nothing outside this loop (every call below
        # is bounded). A cancel scope around it could not be left while the session runs.
        connected = [
            await stack.enter_async_context(Client(s.unwrap().server, mode="legacy"))
            for s in servers
        ]
        yield Clients(*connected)


def _client(clients: Clients, row: Row) -> Client:
    if row.caller is CallerKind.WITHOUT_SCOPE:
        return clients.without_scope
    return clients.served if row.run_sql else clients.off


def _check_result(row: Row, result: types.CallToolResult) -> None:
    assert not result.is_error, text_of(result)
    structured: Any = result.structured_content
    assert isinstance(structured, dict)
    assert structured.get("outcome") == row.mcp.outcome
    check_structured(row, structured)
    check_text_half(row, text_of(result))
    check_nothing_leaked(text_of(result))


def _check_error(row: Row, result: types.CallToolResult) -> None:
    assert result.is_error and result.structured_content is None
    assert text_of(result) == row.sentence
    check_nothing_leaked(text_of(result))


@pytest.mark.parametrize("row", ROWS, ids=row_id)
async def test_every_row_comes_out_of_mcp_as_the_table_says(clients: Clients, row: Row) -> None:
    arguments = row.arguments if row.arguments is not None else {}
    client = _client(clients, row)
    with anyio.fail_after(30):
        if row.mcp.channel is Channel.INVALID_PARAMS:
            with pytest.raises(MCPError) as raised:
                await client.call_tool(row.capability.value, arguments)
            assert raised.value.code == types.INVALID_PARAMS
            assert raised.value.message.startswith(
                UNKNOWN_TOOL if row.reply is NotOffered else str(row.sentence)
            )
            check_nothing_leaked(raised.value.message)
            return
        result = await client.call_tool(row.capability.value, arguments)
    if row.mcp.channel is Channel.RESULT:
        _check_result(row, result)
    else:
        _check_error(row, result)
