"""``sutura mcp`` as a host runs it: a spawned process speaking JSON-RPC on stdio.

These cover what only the binary has: the settings read by the composition root from
``SUTURA_CONFIG_DIR``, stdout carrying nothing but JSON-RPC, the bound on input lines, and a
start that fails stopping the server with its reasons on stderr.
"""

import fcntl
import io
import json
import re
import select
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from sutura.core.nouns.notices import OMITTED_NOTICE, QUOTED_NOTICE
from sutura.transports.mcp.stdio import (
    LINE_CAP,
    OVER_CAP_MESSAGE,
    PIPE_BYTES,
    BoundedLines,
    Skipped,
)
from tests.transports.mcp.configs import settings_document
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION, structured_of, text_of
from tests.transports.mcp.spawned import INITIALIZE, SUTURA, server_environment, spawned

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SPAWN_TIMEOUT = 60


def _descriptions(body: dict[str, Any]) -> list[object]:
    metrics = body["metrics"]
    found = [m.get("description") for m in metrics]
    return found + [d.get("description") for m in metrics for d in m["dimensions"]]


async def _describe_over_stdio(config: Path) -> tuple[str, dict[str, Any]]:
    params = StdioServerParameters(
        command=str(SUTURA), args=["mcp"], env=server_environment(config)
    )
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with Client(params) as client:
            result = await client.call_tool("describe_catalog", {})
    return text_of(result), dict(structured_of(result))


async def test_a_spawned_server_omits_prose_from_both_halves_when_base_yaml_says_omitted(
    example_dir: Path, tmp_path: Path
) -> None:
    text, body = await _describe_over_stdio(
        settings_document(tmp_path, example_dir, prose="omitted")
    )
    assert text.split("\n")[0] == OMITTED_NOTICE
    assert not [line for line in text.split("\n") if line.startswith("> ")]
    assert body["catalog_prose"] == "omitted"
    assert _descriptions(body) == [None] * len(_descriptions(body))


async def test_a_spawned_server_quotes_prose_on_both_halves_by_default(
    example_dir: Path, tmp_path: Path
) -> None:
    text, body = await _describe_over_stdio(settings_document(tmp_path, example_dir, prose=None))
    assert text.split("\n")[0] == QUOTED_NOTICE
    assert [line for line in text.split("\n") if line.startswith("> Revenue: everything")]
    assert body["catalog_prose"] == "quoted"
    assert all(_descriptions(body))


def _call(request_id: int, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def test_every_stdout_line_is_json_rpc_even_while_logging_verbosely(
    example_dir: Path,
) -> None:
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(example_dir, "--verbose") as session:
            await session.handshake()
            tools = await session.request(1, "tools/list")
            # Within the default tools/list budget (docs/mcp.md).
            assert len(json.dumps(tools["result"], separators=(",", ":"))) <= 8192
            for request_id, arguments in enumerate(
                [EXAMPLE_QUESTION, {**EXAMPLE_QUESTION, "metrics": ["nope"]}, {"grain": 1}], 2
            ):
                await session.send(_call(request_id, "ask_metric", arguments))
            await session.send_bytes(b"this line is not JSON\n")
            await session.send(_call(5, "describe_catalog", {}))
            responses = [await session.response(i) for i in (2, 3, 4, 5)]
            assert await session.finish() == 0
    assert [r["result"]["structuredContent"]["outcome"] for r in responses[:2]] == [
        "answer",
        "refusal",
    ]
    assert responses[2]["error"]["code"] == -32602
    assert "DEBUG" in session.stderr  # the logs went somewhere, and it was not stdout


async def test_a_line_over_the_cap_is_refused_and_the_server_carries_on(
    example_dir: Path,
) -> None:
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(example_dir) as session:
            await session.handshake()
            await session.send_bytes(b'{"jsonrpc":"2.0","id":7,"params":"' + b"x" * LINE_CAP)
            await session.send_bytes(b'"}\n')
            refused = await session.response(None)
            tools = await session.request(8, "tools/list")
            assert await session.finish() == 0
    assert refused["error"] == {"code": -32600, "message": OVER_CAP_MESSAGE}
    assert [tool["name"] for tool in tools["result"]["tools"]] == [
        "describe_catalog",
        "ask_metric",
        "list_values",
    ]
    assert not [m for m in session.seen if m.get("id") == 7]


@pytest.mark.skipif(not hasattr(fcntl, "F_GETPIPE_SZ"), reason="Linux pipes only")
def test_a_server_on_a_pipe_widens_it_for_long_answers(example_dir: Path) -> None:
    with subprocess.Popen(
        [str(SUTURA), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=server_environment(example_dir),
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        try:
            before = fcntl.fcntl(process.stdout.fileno(), fcntl.F_GETPIPE_SZ)
            process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], SPAWN_TIMEOUT)
            assert ready, "no answer to initialize"
            widened = fcntl.fcntl(process.stdout.fileno(), fcntl.F_GETPIPE_SZ)
        finally:
            process.kill()
    assert (before, widened) == (64 * 1024, PIPE_BYTES)


def _peak_rss_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    found = re.search(r"^VmHWM:\s+(\d+) kB$", status, re.MULTILINE)
    assert found is not None
    return int(found.group(1))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
async def test_a_64_mib_line_leaves_the_servers_memory_where_it_was(example_dir: Path) -> None:
    chunk = b"x" * (1024 * 1024)
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(example_dir) as session:
            await session.handshake()
            await session.request(1, "tools/call", name="describe_catalog", arguments={})
            before = _peak_rss_kib(session.process.pid)
            await session.send_bytes(b'{"jsonrpc":"2.0","id":2,"params":"')
            for _ in range(64):
                await session.send_bytes(chunk)
            await session.send_bytes(b'"}\n')
            await session.response(None)
            after = _peak_rss_kib(session.process.pid)
            assert await session.finish() == 0
    assert after - before < 16 * 1024, f"peak RSS grew by {after - before} KiB"


def test_the_line_reader_holds_no_more_than_the_cap_whatever_the_line() -> None:
    chunks = iter([b"x" * 65536] * 1024 + [b"x\nnext\n"])  # a 64 MiB line, then one more
    lines = BoundedLines(lambda size: next(chunks, b""), cap=1024 * 1024)
    tracemalloc.start()
    try:
        read = [lines.read(), lines.read(), lines.read()]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert read == [Skipped.OVER_CAP, b"next\n", b""]
    assert peak < 4 * 1024 * 1024


def test_a_line_of_exactly_the_cap_is_read_whole() -> None:
    data = io.BytesIO(b"a" * 100 + b"\n" + b"b" * 101 + b"\n" + b"c" * 100)
    lines = BoundedLines(data.read, cap=100, chunk=7)
    read = [lines.read() for _ in range(4)]
    assert read == [b"a" * 100 + b"\n", Skipped.OVER_CAP, b"c" * 100, b""]


async def test_a_start_that_fails_stops_the_server_and_says_why_on_stderr(
    example_dir: Path, tmp_path: Path
) -> None:
    shutil.copytree(example_dir / "catalog", tmp_path / "catalog")
    revenue = tmp_path / "catalog" / "revenue.md"
    text = revenue.read_text(encoding="utf-8")
    revenue.write_text(re.sub(r"value: [0-9.]+", "value: 1.00", text), encoding="utf-8")
    (tmp_path / "base.yaml").write_text(
        f"catalog:\n  dir: catalog\n  version: v\nsources:\n  main:\n    kind: duckdb\n"
        f"    path: {example_dir / 'data' / 'example.duckdb'}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n",
        encoding="utf-8",
    )
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(tmp_path) as session:
            await session.send(INITIALIZE_AND_CALL[0])
            await session.send(INITIALIZE_AND_CALL[1])
            code = await session.process.wait()
            assert await session.finish() == code == 1
    assert "anchor mismatch: metric revenue: expected 1.00" in session.stderr
    assert not [m for m in session.seen if m.get("id") == 1 and "result" in m]


INITIALIZE_AND_CALL = [
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    },
    _call(1, "ask_metric", EXAMPLE_QUESTION),
]


async def test_the_handshake_needs_no_source_and_the_start_it_begins_stops_a_broken_one(
    example_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "base.yaml").write_text(
        f"catalog:\n  dir: {example_dir / 'catalog'}\n  version: v\nsources:\n  main:\n"
        "    kind: duckdb\n    path: no/such/file.duckdb\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n",
        encoding="utf-8",
    )
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(tmp_path) as session:
            initialized = await session.handshake()
            listed = await session.request(1, "tools/list")
            code = await session.process.wait()
            assert await session.finish() == code == 1
    assert initialized["result"]["instructions"].startswith("# sutura")
    assert len(listed["result"]["tools"]) == 3
    assert "settings: sources.main: " in session.stderr


async def test_a_settings_problem_stops_before_serving_and_writes_nothing_to_stdout(
    tmp_path: Path,
) -> None:
    (tmp_path / "base.yaml").write_text("prompt:\n  catalog_prose: summarised\n", "utf-8")
    with anyio.fail_after(SPAWN_TIMEOUT):
        async with spawned(tmp_path) as session:
            assert await session.finish() == 1
    assert session.raw == []
    assert "prompt.catalog_prose" in session.stderr


def test_the_binary_under_test_is_the_console_script() -> None:
    assert SUTURA.is_file(), f"{SUTURA} missing: install the project ({sys.executable})"
