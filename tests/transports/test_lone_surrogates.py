"""A question holding a lone surrogate is malformed at the field that holds it, on every surface.

No strict UTF-8 JSON carries one, but three ways in do: a JSON parser that accepts the escape
``"\\ud800"`` (the MCP SDK's), a command line whose argument is not UTF-8 (Python passes its
bytes on as surrogates), and a Python caller's own Struct, dict or JSON text. Each is refused
as a malformed question naming the field, never "something broke" with nothing answered.
"""

import json
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from sutura import api
from sutura.core.nouns.question import Question
from sutura.core.tool.arguments import Arguments
from tests.transports.cli.running import run_in_process
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION
from tests.transports.mcp.spawned import spawned

pytestmark = pytest.mark.anyio

LONE = "\ud800"
UNDECODABLE = "rev\udced\udca0\udc80"  # b"rev\xed\xa0\x80" as Python hands an argv over

CASES: list[tuple[dict[str, Any], str]] = [
    ({**EXAMPLE_QUESTION, "metrics": [f"revenue{LONE}"]}, "$.metrics[0]"),
    ({**EXAMPLE_QUESTION, "dimensions": ["region", f"r{LONE}"]}, "$.dimensions[1]"),
    (
        {**EXAMPLE_QUESTION, "filters": [{"dimension": "region", "op": "eq", "value": LONE}]},
        "$.filters[0].value",
    ),
    (
        {
            **EXAMPLE_QUESTION,
            "filters": [{"dimension": "region", "op": "in", "values": ["East", f"W{LONE}"]}],
        },
        "$.filters[0].values[1]",
    ),
]


@pytest.mark.parametrize(("question", "field"), CASES)
@pytest.mark.parametrize("capability", [api.Capability.ASK_METRIC, api.Capability.COMPILE_QUESTION])
async def test_the_python_api_names_the_field_of_a_lone_surrogate_in_any_form(
    example_dir: Path, question: dict[str, Any], field: str, capability: api.Capability
) -> None:
    forms: list[Arguments] = [question, msgspec.convert(question, Question)]
    with anyio.fail_after(60):
        async with api.opened(example_dir) as started:
            service = started.unwrap()
            replies = [await api.call(service, capability, form) for form in forms]
            as_text = await api.call(service, capability, json.dumps(question, ensure_ascii=False))
    for reply in replies:
        assert isinstance(reply, api.Malformed), reply
        assert (reply.field, reply.problem) == (field, "a lone surrogate is not text")
    # JSON text holding one cannot be UTF-8 at all: the whole document is refused.
    assert isinstance(as_text, api.Malformed)
    assert (as_text.field, as_text.problem) == ("$", "a lone surrogate is not text")


@pytest.mark.parametrize(
    ("capability", "arguments"),
    [
        (api.Capability.DESCRIBE_CATALOG, {"search": LONE}),
        (api.Capability.LIST_VALUES, {"metric": "revenue", "dimension": "region", "search": LONE}),
    ],
)
async def test_other_capabilities_refuse_json_text_holding_a_lone_surrogate(
    example_dir: Path, capability: api.Capability, arguments: dict[str, Any]
) -> None:
    with anyio.fail_after(60):
        async with api.opened(example_dir) as started:
            reply = await api.call(
                started.unwrap(), capability, json.dumps(arguments, ensure_ascii=False)
            )
    assert isinstance(reply, api.Malformed), reply
    assert (reply.field, reply.problem) == ("$", "a lone surrogate is not text")


def test_the_command_line_names_an_argument_that_is_not_utf8(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["query", UNDECODABLE, "--from", "2024-01-01", "--to", "2025-01-01"]
    code, out, err = run_in_process(argv, example_dir, capsys)
    assert code == 2
    assert out == ""
    assert "malformed question: $.metrics[0]: a lone surrogate is not text" in err
    assert "something broke" not in err


async def test_mcp_over_stdio_answers_an_escaped_lone_surrogate_under_the_requests_id(
    example_dir: Path,
) -> None:
    lone = {"dimension": "region", "op": "eq", "value": LONE}
    arguments = {**EXAMPLE_QUESTION, "filters": [lone]}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "ask_metric", "arguments": arguments},
    }
    with anyio.fail_after(60):
        async with spawned(example_dir) as session:
            await session.handshake()
            await session.send_bytes(json.dumps(call).encode("ascii") + b"\n")  # "\ud800"
            response = await session.response(2)
            after = await session.request(3, "tools/call", name="describe_catalog", arguments={})
            assert await session.finish() == 0
    assert response["error"]["code"] == -32700
    assert "lone surrogate" in response["error"]["message"]
    assert after["result"]["isError"] is False


async def test_mcp_over_stdio_answers_every_line_it_cannot_read(example_dir: Path) -> None:
    with anyio.fail_after(60):
        async with spawned(example_dir) as session:
            await session.handshake()
            await session.send_bytes(b"not json at all\n")
            not_json = await session.response(None)
            await session.send_bytes(b'{"jsonrpc": "2.0", "id": 4, "params": {}}\n')
            not_rpc = await session.response(4)
            await session.send_bytes(b'{"jsonrpc": "2.0", "id": 5, "method": "ping"}\n')
            pong = await session.response(5)
            assert await session.finish() == 0
    assert not_json["error"]["code"] == -32700
    assert not_rpc["error"]["code"] == -32600
    assert pong["result"] == {}
