"""Admission on ``sutura mcp``: a call finding every slot taken is shed at once, as a tool
result with ``isError`` saying to ask again shortly; the catalog needs no slot."""

from pathlib import Path

import anyio
import pytest
from mcp import Client

from sutura.boundary import service as service_module
from sutura.boundary.sources.skeleton import run_certified
from sutura.transports.mcp.admission import Slots
from sutura.transports.mcp.server import SHED_SENTENCE, local_caller, mcp_server
from tests.transports.mcp.configs import HOSTILE_QUESTION, hostile_config
from tests.transports.mcp.inprocess import text_of, wiring

pytestmark = pytest.mark.anyio


async def test_a_call_past_the_slots_is_shed_as_an_error_result_saying_ask_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = anyio.Event()
    release = anyio.Event()
    real = run_certified

    async def hold(*args: object, **kwargs: object) -> object:
        held.set()
        await release.wait()
        return await real(*args, **kwargs)  # type: ignore[arg-type]  # passed through as given

    slots = Slots(1)
    composed = mcp_server(wiring(hostile_config(tmp_path)).load(), local_caller, slots).unwrap()
    results = []
    with anyio.fail_after(30):
        async with Client(composed.server, mode="legacy") as client:
            await client.list_tools()
            monkeypatch.setattr(service_module, "run_certified", hold)

            async def first() -> None:
                results.append(await client.call_tool("ask_metric", HOSTILE_QUESTION))

            async with anyio.create_task_group() as group:
                group.start_soon(first)
                await held.wait()
                shed = await client.call_tool("ask_metric", HOSTILE_QUESTION)
                catalog = await client.call_tool("describe_catalog", {})
                release.set()
    assert shed.is_error and text_of(shed) == SHED_SENTENCE == (
        "The server is at capacity: ask again shortly."
    )
    assert not catalog.is_error
    (answered,) = results
    assert not answered.is_error
    assert (slots.active, slots.shed) == (0, 1)
