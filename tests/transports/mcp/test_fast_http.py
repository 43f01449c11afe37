"""``/mcp``'s own path for a well-formed tool call answers as the SDK's stateless transport does.

The same requests are sent to one ``sutura serve`` app with the path (:mod:`.fast_http`) and
without it: plain calls of every tool, hostile answers, every handshake-era version, ids of
every JSON type, ``_meta`` and progress tokens, malformed arguments, an unknown tool, odd
headers and bodies, the modern era, other methods, callers whose scopes or audiences refuse the
call. Every response is the same: its status, every header in order, and its body byte for byte
(the time an answer was computed at aside). The requests the path should take were taken by it,
and the rest were left to the SDK.
"""

import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from litestar import Litestar
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from sutura.transports.mcp import fast_http
from tests.transports.http.deployments import AUTH, QUESTION, assembled, write_deployment
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION
from tests.transports.mcp.remote import BASE

pytestmark = pytest.mark.anyio

RUN_SQL_ON = "tools:\n  run_sql:\n    enabled: true\n    source: main\n"
JSON = "application/json"
PLAIN = {
    "Content-Type": JSON,
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-11-25",
    "X-Request-Id": "compared-request",
}
_COMPUTED_AT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
PAIR = KeyPair("k1")

Sent = tuple[dict[str, str], bytes]


def _call(name: str, arguments: object, request_id: object = 1, **params: object) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, **params},
    }
    return json.dumps(message).encode("utf-8")


def _plain(question: dict[str, Any]) -> list[tuple[str, Sent]]:
    """Requests the path takes: plain calls of every tool, in every handshake-era version."""
    sql = {"statement": "select 1 as one, 'é😀\u2028\x7f' as odd"}
    taken = [
        (f"ask_metric {version}", ({**PLAIN, "MCP-Protocol-Version": version},
                                   _call("ask_metric", question)))
        for version in HANDSHAKE_PROTOCOL_VERSIONS
    ]  # fmt: skip
    taken += [
        ("describe_catalog", (PLAIN, _call("describe_catalog", {}))),
        ("list_values", (PLAIN, _call("list_values", {"metric": "units", "dimension": "label"}))),
        ("run_sql", (PLAIN, _call("run_sql", sql))),
        ("run_sql ascii-escaped", (PLAIN, _call("run_sql", sql).replace(b"\\u00e9", b"\xc3\xa9"))),
        ("string id", (PLAIN, _call("ask_metric", question, "r-é"))),
        ("big id", (PLAIN, _call("ask_metric", question, 2**62))),
        ("negative id", (PLAIN, _call("ask_metric", question, -3))),
        ("progress token", (PLAIN, _call("ask_metric", question, _meta={"progressToken": "p"}))),
        ("int token", (PLAIN, _call("ask_metric", question, _meta={"progressToken": 7}))),
        ("empty meta", (PLAIN, _call("ask_metric", question, _meta={}))),
        ("malformed arguments", (PLAIN, _call("ask_metric", {"metrics": 5}))),
        ("unknown metric", (PLAIN, _call("ask_metric", {**question, "metrics": ["nope"]}))),
        ("no arguments", (PLAIN, b'{"jsonrpc":"2.0","id":9,"method":"tools/call",'
                                 b'"params":{"name":"ask_metric"}}')),
        ("charset-free accept */*", ({**PLAIN, "Accept": "*/*"}, _call("ask_metric", question))),
    ]  # fmt: skip
    return taken


def _declined(question: dict[str, Any]) -> list[tuple[str, Sent]]:
    """Requests the path leaves to the SDK."""
    call = _call("ask_metric", question)
    no_version = {k: v for k, v in PLAIN.items() if k != "MCP-Protocol-Version"}
    return [
        ("modern era", ({**PLAIN, "MCP-Protocol-Version": MODERN_PROTOCOL_VERSIONS[0]}, call)),
        ("unknown version", ({**PLAIN, "MCP-Protocol-Version": "2099-01-01"}, call)),
        ("no version", (no_version, call)),
        ("charset", ({**PLAIN, "Content-Type": "application/json; charset=utf-8"}, call)),
        ("upper-case type", ({**PLAIN, "Content-Type": "Application/JSON"}, call)),
        ("unknown tool", (PLAIN, _call("nope", {}))),
        ("a tool not offered here", (PLAIN, _call("compile_question", question))),
        ("tool name not a string", (PLAIN, _call(5, {}))),  # type: ignore[arg-type]
        ("arguments a list", (PLAIN, _call("ask_metric", [1]))),
        ("null meta", (PLAIN, _call("ask_metric", question, _meta=None))),
        ("bool token", (PLAIN, _call("ask_metric", question, _meta={"progressToken": True}))),
        ("other meta", (PLAIN, _call("ask_metric", question, _meta={"x": 1}))),
        ("extra param", (PLAIN, _call("ask_metric", question, task={"ttl": 1}))),
        ("tools/list", (PLAIN, b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')),
        ("initialize", (PLAIN, b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}')),
        ("notification", (PLAIN, b'{"jsonrpc":"2.0","method":"notifications/initialized"}')),
        ("not a message", (PLAIN, b'{"jsonrpc":"2.0","id":1}')),
        ("not JSON", (PLAIN, b"{")),
        ("no token", ({"Authorization": ""}, call)),
        ("body over the limit", (PLAIN, _call("ask_metric", {**question, "pad": "x" * 70_000}))),
    ]


@contextmanager
def _spied(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    taken: list[bool] = []
    plain = fast_http.FastHttp._taken

    def noting(self: fast_http.FastHttp, scope: Any, message: Any) -> Any:
        found = plain(self, scope, message)
        taken.append(found is not None)
        return found

    monkeypatch.setattr(fast_http.FastHttp, "_taken", noting)
    yield taken


async def _both(
    app: Litestar, headers: dict[str, str], body: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, list[tuple[bytes, bytes]], bytes], ...]:
    answers = []
    for enabled in (True, False):
        monkeypatch.setattr(fast_http, "ENABLED", enabled)
        async with _client(app, headers) as http:
            response = await http.post("/mcp", content=body)
        raw = response.headers.raw
        if response.status_code == 401:  # an unauthenticated request's id is the server's own
            raw = [(k, b"id" if k == b"x-request-id" else v) for k, v in raw]
        answers.append((response.status_code, raw, _COMPUTED_AT.sub(b"T", response.content)))
    return tuple(answers)


def _client(app: Litestar, headers: dict[str, str]) -> httpx2.AsyncClient:
    asgi: Any = app
    transport = httpx2.ASGITransport(app=asgi)
    return httpx2.AsyncClient(transport=transport, base_url=BASE, headers=headers)


@pytest.fixture(scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Litestar]:
    """``sutura serve``'s app over the hostile deployment, the raw SQL tool on."""
    config = write_deployment(tmp_path_factory.mktemp("fast-http"), settings=RUN_SQL_ON)
    async with assembled(config) as started:
        yield started.app


async def _compare(
    app: Litestar,
    cases: list[tuple[str, Sent]],
    taken: bool,
    monkeypatch: pytest.MonkeyPatch,
    auth: dict[str, str],
) -> None:
    for name, (headers, body) in cases:
        with _spied(monkeypatch) as spied:
            fast, sdk = await _both(app, {**auth, **headers}, body, monkeypatch)
        assert fast == sdk, name
        if taken:
            assert spied[:1] == [True], name
        else:
            assert True not in spied, name


async def test_a_plain_call_is_answered_as_the_sdk_answers_it(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _compare(app, _plain(QUESTION), True, monkeypatch, AUTH)


async def test_every_other_request_is_left_to_the_sdk_and_answered_as_before(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _compare(app, _declined(QUESTION), False, monkeypatch, AUTH)


@pytest.fixture(scope="module")
async def multi_user(
    tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[Litestar]:
    """The multi-user example: audiences restrict two metrics, tokens carry scopes."""
    config = write_multi_user(tmp_path_factory.mktemp("fast-http-users"), example_dir, PAIR)
    async with assembled(config) as started:
        yield started.app


@pytest.mark.parametrize(
    ("who", "changes"),
    [
        ("every scope, no group", {}),
        ("finance-team", {"groups": ["finance-team"]}),
        ("directors", {"groups": ["directors"]}),
        ("catalog scope only", {"scope": "catalog:read"}),
    ],
)
async def test_the_callers_scopes_and_audiences_decide_the_call_as_on_the_sdks_path(
    multi_user: Litestar, monkeypatch: pytest.MonkeyPatch, who: str, changes: dict[str, Any]
) -> None:
    auth = {"Authorization": f"Bearer {mint(PAIR, claims(**changes))}"}
    restricted = {**EXAMPLE_QUESTION, "metrics": ["return_rate", "average_order_value"]}
    cases = [
        ("open metric", (PLAIN, _call("ask_metric", EXAMPLE_QUESTION))),
        ("restricted metrics", (PLAIN, _call("ask_metric", restricted))),
        ("catalog", (PLAIN, _call("describe_catalog", {}))),
    ]
    await _compare(multi_user, cases, True, monkeypatch, auth)
