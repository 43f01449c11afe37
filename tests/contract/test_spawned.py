"""A few rows of the contract as a user's processes meet them: the ``sutura mcp`` binary
spawned by a host (every stdout line checked to be JSON-RPC), and the ``sutura`` console script
run in a subprocess, on DuckDB and on PostgreSQL. No seam reaches another process, so only rows
every engine provokes for real are driven here (``Row.spawned``)."""

import subprocess
import sys
from collections.abc import AsyncIterator
from itertools import count
from typing import Any

import anyio
import pytest

from tests.contract.deployment import Deployment
from tests.contract.expect import check_nothing_leaked, check_structured, check_text_half
from tests.contract.rows import ROWS
from tests.contract.table import Channel, Row, Stream, cli_argv, row_id
from tests.transports.mcp.spawned import RawSession, server_environment, spawned

pytestmark = pytest.mark.slow

SCRIPT = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
SPAWNED = [row for row in ROWS if row.spawned]
_IDS = count(1)


def _extra(deployment: Deployment) -> dict[str, str]:
    return {k: v for k, v in deployment.environ.items() if k != "SUTURA_CONFIG_DIR"}


@pytest.fixture(scope="module")
async def session(deployment: Deployment) -> AsyncIterator[RawSession]:
    """One spawned ``sutura mcp`` for the module, past its handshake."""
    async with spawned(deployment.config, **_extra(deployment)) as started:
        with anyio.fail_after(60):
            await started.handshake()
        yield started
        with anyio.fail_after(60):
            assert await started.finish() == 0, started.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("row", SPAWNED, ids=row_id)
async def test_a_spawned_server_carries_the_row_as_the_table_says(
    session: RawSession, row: Row
) -> None:
    arguments: dict[str, Any] = row.arguments or {}
    params = {"name": row.capability.value, "arguments": arguments}
    with anyio.fail_after(60):
        response = await session.request(next(_IDS), "tools/call", **params)
    if row.mcp.channel is Channel.INVALID_PARAMS:
        assert response["error"]["code"] == -32602
        assert response["error"]["message"].startswith(str(row.sentence))
        return
    result = response["result"]
    assert result.get("isError", False) is (row.mcp.channel is Channel.IS_ERROR)
    check_structured(row, result["structuredContent"])
    (block,) = result["content"]
    check_text_half(row, block["text"])
    check_nothing_leaked(block["text"])


@pytest.mark.parametrize("row", SPAWNED, ids=row_id)
def test_the_console_script_carries_the_row_as_the_table_says(
    deployment: Deployment, row: Row
) -> None:
    done = subprocess.run(
        [*SCRIPT, *cli_argv(row)],
        env=server_environment(deployment.config, **_extra(deployment)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == row.cli.exit, done.stderr
    match row.cli.stream:
        case Stream.STDOUT:
            assert done.stderr == ""
            check_text_half(row, done.stdout)
        case Stream.STDERR:
            assert done.stdout == ""
            assert done.stderr.startswith(f"sutura: {row.sentence}"), done.stderr
    check_nothing_leaked(done.stdout, done.stderr)
