"""``/mcp`` on ``sutura serve``: the stdio tools over streamable HTTP, stateless, behind the
``/v1`` token, with ``Host``/``Origin`` checked; driven by the MCP SDK's own HTTP client."""

import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from litestar import Litestar
from mcp import Client

from sutura.boundary.admission import SHED_SENTENCE, ShedError
from sutura.boundary.prompts import Prompts, agent_tools
from sutura.core.nouns.answer import Answer
from sutura.core.tool.caller import Caller, EveryAudience
from sutura.core.tool.capability import Scope
from sutura.core.tool.codec import decode_outcome
from sutura.transports.mcp.remote import _Opened
from sutura.transports.mcp.server import Tools, mcp_server, tool_server
from tests.services import serving
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    SLOW_TABLE,
    assembled,
    environ,
    write_deployment,
)
from tests.transports.mcp.configs import HOSTILE_QUESTION, carried_cells, hostile_config
from tests.transports.mcp.inprocess import structured_of, text_of, wiring
from tests.transports.mcp.remote import LEGACY, LIST_TOOLS, http_of, mcp_client
from tests.transports.mcp.test_corpus import assert_answer_text_holds_p1_to_p4

pytestmark = pytest.mark.anyio

RUN_SQL_ON = "tools:\n  run_sql:\n    enabled: true\n    source: main\n"


@pytest.fixture(scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Litestar]:
    """``sutura serve``'s app over one deployment with a token and the raw SQL tool on."""
    config = write_deployment(tmp_path_factory.mktemp("remote"), settings=RUN_SQL_ON)
    async with assembled(config) as started:
        yield started.app


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_mcp_over_http_lists_the_stdio_tools_and_answers_like_v1_query(
    app: Litestar, mode: str
) -> None:
    with anyio.fail_after(30):
        async with http_of(app, AUTH) as http, mcp_client(http, mode) as client:
            listed = await client.list_tools()
            result = await client.call_tool("ask_metric", QUESTION)
            v1 = await http.post("/v1/query", json=QUESTION)
    assert [tool.name for tool in listed.tools] == [
        "describe_catalog",
        "ask_metric",
        "run_sql",
        "list_values",
    ]
    assert not result.is_error
    assert structured_of(result) == v1.json()
    answer = decode_outcome(msgspec.json.encode(structured_of(result))).unwrap()
    assert isinstance(answer, Answer)
    assert_answer_text_holds_p1_to_p4(answer, text_of(result))


async def test_the_tools_over_http_are_the_tools_over_stdio(app: Litestar, tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings=RUN_SQL_ON)
    stdio = mcp_server(wiring(config).load()).unwrap()
    with anyio.fail_after(30):
        async with Client(stdio.server, mode="legacy") as local:
            over_stdio = await local.list_tools()
        async with http_of(app, AUTH) as http, mcp_client(http) as client:
            over_http = await client.list_tools()
            instructions = client.instructions
    assert over_http.tools == over_stdio.tools
    assert instructions is not None and instructions.startswith("# sutura")


async def test_mcp_without_the_token_is_401_before_the_sdk_sees_it(app: Litestar) -> None:
    async with http_of(app, LEGACY) as http:
        missing = await http.post("/mcp", json=LIST_TOOLS)
        wrong = await http.post(
            "/mcp", json=LIST_TOOLS, headers={"Authorization": "Bearer not-the-token-at-all"}
        )
    for response in (missing, wrong):
        assert response.status_code == 401
        assert response.json()["code"] == "unauthorized"
        assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "headers",
    [
        {"Host": "rebound.example"},
        {"Host": "rebound.example:8765"},
        {"Origin": "http://rebound.example"},
        {"Origin": "null"},
        {"Origin": "file://localhost"},
    ],
    ids=["host", "host-port", "origin", "null-origin", "file-origin"],
)
async def test_a_host_or_origin_outside_allowed_hosts_is_403_host_not_allowed(
    app: Litestar, headers: dict[str, str]
) -> None:
    async with http_of(app, {**AUTH, **LEGACY}) as http:
        response = await http.post("/mcp", json=LIST_TOOLS, headers=headers)
    assert response.status_code == 403
    assert response.json()["code"] == "host_not_allowed"


async def test_a_loopback_origin_on_any_port_is_served(app: Litestar) -> None:
    headers = {**AUTH, **LEGACY, "Origin": "http://127.0.0.1:6274"}
    async with http_of(app, headers) as http:
        response = await http.post("/mcp", json=LIST_TOOLS)
    assert response.status_code == 200
    assert response.json()["result"]["tools"][0]["name"] == "describe_catalog"


async def test_a_session_id_is_neither_issued_nor_needed_nor_trusted(app: Litestar) -> None:
    forged = {"Mcp-Session-Id": uuid.uuid4().hex}
    initialize: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    async with http_of(app, {**AUTH, **LEGACY}) as http:
        opened = await http.post("/mcp", json=initialize)
        listed = await http.post("/mcp", json=LIST_TOOLS, headers=forged)
    assert opened.status_code == 200 and "mcp-session-id" not in opened.headers
    assert listed.status_code == 200 and "result" in listed.json()


async def test_the_off_switch_leaves_no_mcp_route(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="server:\n  mcp:\n    enabled: false\n")
    with anyio.fail_after(30):
        async with assembled(config) as started, http_of(started.app, {**AUTH, **LEGACY}) as http:
            response = await http.post("/mcp", json=LIST_TOOLS)
            v1 = await http.post("/v1/query", json=QUESTION)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert v1.status_code == 200


async def test_the_corpus_crosses_mcp_over_http_exactly(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    with anyio.fail_after(30):
        async with (
            assembled(config) as started,
            http_of(started.app, LEGACY) as http,
            mcp_client(http) as client,
        ):
            result = await client.call_tool("ask_metric", HOSTILE_QUESTION)
    answer = decode_outcome(msgspec.json.encode(structured_of(result))).unwrap()
    assert isinstance(answer, Answer)
    assert {row[1] for row in answer.rows} == set(carried_cells())
    assert_answer_text_holds_p1_to_p4(answer, text_of(result))


def _ask_only(request_id: str = "r") -> Caller:
    return Caller(
        subject="agent-7",
        scopes=frozenset({Scope.CATALOG_READ, Scope.METRICS_ASK}),
        audiences=EveryAudience.EVERY,
        request_id=request_id,
    )


async def test_a_caller_sees_only_the_tools_its_scopes_allow_and_is_refused_the_rest(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, settings=RUN_SQL_ON)
    narrow = mcp_server(wiring(config).load(), new_caller=_ask_only).unwrap()
    full = mcp_server(wiring(config).load()).unwrap()
    with anyio.fail_after(30):
        async with Client(narrow.server, mode="legacy") as client:
            listed = await client.list_tools()
            refused = await client.call_tool("run_sql", {"statement": "SELECT 1"})
            told = client.instructions
        async with Client(full.server, mode="legacy") as client:
            told_all = client.instructions
    assert [tool.name for tool in listed.tools] == ["describe_catalog", "ask_metric"]
    assert refused.is_error and "sutura:sql.run" in text_of(refused)
    assert told is not None and told_all is not None
    assert "run_sql" in told_all and "run_sql" not in told


async def test_a_call_past_the_shared_slots_is_shed_as_an_error_result(tmp_path: Path) -> None:
    slow = "limits:\n  deadline_seconds: 2\nserver:\n  max_concurrent_queries: 1\n"
    config = write_deployment(tmp_path, table=SLOW_TABLE, settings=slow)
    results: list[Any] = []
    with anyio.fail_after(30):
        async with (
            assembled(config) as started,
            http_of(started.app, AUTH) as http,
            mcp_client(http) as first,
            mcp_client(http) as second,
        ):

            async def ask(client: Client) -> None:
                results.append(await client.call_tool("ask_metric", QUESTION))

            async with anyio.create_task_group() as group:
                group.start_soon(ask, first)
                group.start_soon(ask, second)
    shed = [r for r in results if r.is_error]
    ran = [r for r in results if not r.is_error]
    assert [text_of(r) for r in shed] == [SHED_SENTENCE]
    assert [structured_of(r)["reason"]["code"] for r in ran] == ["deadline_exceeded"]


class _Full:
    """Admission with no slot free, ever."""

    def slot(self) -> AbstractContextManager[None]:
        """No slot: shed at once."""
        raise ShedError


async def test_only_a_call_that_runs_a_query_waits_for_a_slot(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="tools:\n  compile_question:\n    enabled: true\n")
    loaded = wiring(config).load().unwrap()
    settings = loaded.loaded.settings
    with anyio.fail_after(30):
        async with serving(environ(config)) as service:
            tools = Tools(agent_tools(settings), _ask_only_and_compile, _Full())

            @asynccontextmanager
            async def opened(_server: Any) -> AsyncIterator[Any]:
                yield _Opened(service)

            prompts = Prompts(loaded.pinned, settings, loaded.instructions)
            server = tool_server(loaded, tools, _ask_only_and_compile, opened, prompts.for_caller)
            async with Client(server, mode="legacy") as client:
                asked = await client.call_tool("ask_metric", QUESTION)
                compiled = await client.call_tool("compile_question", QUESTION)
                catalog = await client.call_tool("describe_catalog", {})
    assert asked.is_error and text_of(asked) == SHED_SENTENCE
    assert not compiled.is_error and structured_of(compiled)["sql"]
    assert not catalog.is_error


def _ask_only_and_compile(request_id: str = "r") -> Caller:
    return Caller(
        subject="agent-7",
        scopes=frozenset({Scope.CATALOG_READ, Scope.METRICS_ASK, Scope.METRICS_COMPILE}),
        audiences=EveryAudience.EVERY,
        request_id=request_id,
    )
