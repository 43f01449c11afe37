"""``POST /v1/query``'s own path answers as the route does (``transports/http/query_path.py``).

The same requests are sent to one ``sutura serve`` app with the path and without it (its
``ENABLED`` turned off, so litestar's routing answers): questions answered over hostile cells,
refused, malformed, empty, not JSON; tokens wrong, missing, in the query string; content types,
lengths, hosts, methods, trailing slashes and duplicated headers the path must leave alone; a
full admission; a body arriving in pieces, late, never, cut off by the client, or past its
bound; callers whose scopes and audiences refuse the question. Every response is the
same: its status, every header in order, and its body byte for byte (the time an answer was
computed at aside). The requests the path should take were taken by it, and the rest were left
to litestar; and a question uvicorn reads off a real socket, configured as ``sutura serve``
configures it, is taken by the path.
"""

import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from litestar import Litestar

from sutura.transports.http import query_path
from sutura.transports.http.connections import ConnectionBounds
from sutura.transports.http.serve import bind, uvicorn_config
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    Receive,
    assembled,
    posted,
    write_deployment,
)
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION
from tests.transports.mcp.remote import BASE

pytestmark = pytest.mark.anyio

JSON = "application/json"
PLAIN = {"Content-Type": JSON, "X-Request-Id": "compared-request"}
_COMPUTED_AT = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
PAIR = KeyPair("q1")

# A request: the path and method, the headers (a list: a name may repeat), the body.
Sent = tuple[str, str, list[tuple[str, str]], bytes]
Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


def _post(headers: dict[str, str], body: bytes, path: str = "/v1/query") -> Sent:
    return ("POST", path, list(headers.items()), body)


def _asked(question: dict[str, Any]) -> bytes:
    return json.dumps(question).encode("utf-8")


def _taken(question: dict[str, Any]) -> list[tuple[str, Sent]]:
    """Requests the path answers itself."""
    asked = _asked(question)
    return [
        ("a question", _post(PLAIN, asked)),
        ("charset", _post({**PLAIN, "Content-Type": "application/json; charset=utf-8"}, asked)),
        ("upper-case type", _post({**PLAIN, "Content-Type": "Application/JSON"}, asked)),
        ("no request id", _post({"Content-Type": JSON}, asked)),
        ("a request id that is not kept", _post({**PLAIN, "X-Request-Id": "a b"}, asked)),
        ("unknown metric", _post(PLAIN, _asked({**question, "metrics": ["nope"]}))),
        ("dimension not permitted", _post(PLAIN, _asked({**question, "dimensions": ["nope"]}))),
        ("range backwards", _post(PLAIN, _asked({**question, "range": {
            "start": "2025-01-01", "end": "2024-01-01"}}))),
        ("metrics not a list", _post(PLAIN, _asked({**question, "metrics": 5}))),
        ("unknown field", _post(PLAIN, _asked({**question, "extra": 1}))),
        ("not JSON", _post(PLAIN, b"{")),
        ("JSON null", _post(PLAIN, b"null")),
        ("a list", _post(PLAIN, b"[1]")),
        ("empty body", _post(PLAIN, b"")),
        ("not UTF-8", _post(PLAIN, b'{"metrics": ["\xff"]}')),
        ("a lone surrogate", _post(PLAIN, b'{"metrics": ["\\ud800"]}')),
        ("wrong token", _post({**PLAIN, "Authorization": "Bearer not-the-token"}, asked)),
        ("no token", _post({**PLAIN, "Authorization": ""}, asked)),
        ("basic scheme", _post({**PLAIN, "Authorization": "Basic dXNlcjpwYXNz"}, asked)),
    ]  # fmt: skip


def _declined(question: dict[str, Any]) -> list[tuple[str, Sent]]:
    """Requests the path leaves to litestar."""
    asked = _asked(question)
    return [
        ("token in the query", _post(PLAIN, asked, "/v1/query?access_token=x")),
        ("any query", _post(PLAIN, asked, "/v1/query?x=1")),
        ("text/plain", _post({**PLAIN, "Content-Type": "text/plain"}, asked)),
        ("no content type", _post({"X-Request-Id": "compared-request"}, asked)),
        ("host not allowed", _post({**PLAIN, "Host": "evil.example"}, asked)),
        ("body over the limit", _post(PLAIN, _asked({**question, "pad": "x" * 70_000}))),
        ("trailing slash", _post(PLAIN, asked, "/v1/query/")),
        ("GET", ("GET", "/v1/query", list(PLAIN.items()), b"")),
        ("PUT", ("PUT", "/v1/query", list(PLAIN.items()), asked)),
        ("two content types", ("POST", "/v1/query",
                               [*PLAIN.items(), ("Content-Type", "text/plain")], asked)),
        ("another route", _post(PLAIN, asked, "/v1/compile")),
    ]  # fmt: skip


@contextmanager
def _spied(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    taken: list[bool] = []
    plain = query_path.QueryPath._takes

    def noting(self: query_path.QueryPath, scope: Any) -> bool:
        found = plain(self, scope)
        taken.append(found)
        return found

    monkeypatch.setattr(query_path.QueryPath, "_takes", noting)
    yield taken


def _client(app: Litestar) -> httpx2.AsyncClient:
    asgi: Any = app
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=asgi), timeout=30)


async def _sent(app: Litestar, auth: dict[str, str], sent: Sent) -> Answer:
    """The response to ``sent`` (with ``auth`` unless it names that header itself); an id the
    server chose (it keeps no caller's that is not plausible) reads ``id``."""
    method, path, headers, body = sent
    named = {name.lower() for name, _ in headers}
    raw = [(k, v) for k, v in auth.items() if k.lower() not in named] + headers
    async with _client(app) as http:
        response = await http.send(httpx2.Request(method, BASE + path, headers=raw, content=body))
    returned = response.headers.raw
    if (b"x-request-id", b"compared-request") not in returned:
        returned = [(k, b"id" if k == b"x-request-id" else v) for k, v in returned]
    return response.status_code, returned, _COMPUTED_AT.sub(b"T", response.content)


async def _both(
    app: Litestar, auth: dict[str, str], sent: Sent, monkeypatch: pytest.MonkeyPatch
) -> tuple[Answer, Answer]:
    monkeypatch.setattr(query_path, "ENABLED", True)
    path = await _sent(app, auth, sent)
    monkeypatch.setattr(query_path, "ENABLED", False)
    route = await _sent(app, auth, sent)
    return path, route


async def _compare(
    app: Litestar,
    cases: list[tuple[str, Sent]],
    taken: bool,
    monkeypatch: pytest.MonkeyPatch,
    auth: dict[str, str],
) -> list[int]:
    statuses = []
    for name, sent in cases:
        with _spied(monkeypatch) as spied:
            path, route = await _both(app, auth, sent, monkeypatch)
        assert path == route, name
        assert spied[:1] == [taken], name
        statuses.append(path[0])
    return statuses


@pytest.fixture(scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Litestar]:
    """``sutura serve``'s app over the hostile deployment."""
    config = write_deployment(tmp_path_factory.mktemp("query-path"))
    async with assembled(config) as started:
        yield started.app


async def test_a_question_is_answered_as_the_route_answers_it(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    statuses = await _compare(app, _taken(QUESTION), True, monkeypatch, AUTH)
    # The corpus reaches every kind of response the path writes.
    assert {200, 400, 401, 403, 404} <= set(statuses)


async def test_every_other_request_is_left_to_litestar_and_answered_as_before(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    statuses = await _compare(app, _declined(QUESTION), False, monkeypatch, AUTH)
    assert {401, 403, 405, 413, 415} <= set(statuses)


async def test_a_full_admission_is_answered_as_the_route_answers_it(
    app: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler: Any = app.asgi_handler
    assert isinstance(handler, query_path.QueryPath)
    admission = handler.calls.admission
    with ExitStack() as every_slot:
        for _ in range(admission.limit):
            every_slot.enter_context(admission.slot())
        statuses = await _compare(app, _taken(QUESTION)[:1], True, monkeypatch, AUTH)
    assert statuses == [503]
    assert admission.active == 0


BOUNDED = "server:\n  request_timeout_seconds: 0.5\n  max_body_bytes: 4096\n"


@pytest.fixture(scope="module")
async def bounded(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Litestar]:
    """The hostile deployment with a short request deadline and a small body bound."""
    config = write_deployment(tmp_path_factory.mktemp("query-path-bounded"), settings=BOUNDED)
    async with assembled(config) as started:
        yield started.app


async def _raw(app: Litestar, length: int, receive: Receive) -> Answer:
    """``POST /v1/query`` straight through the ASGI interface, declaring ``length`` bytes and
    reading the body from ``receive``."""
    headers = [
        (b"host", b"localhost"),
        (b"authorization", AUTH["Authorization"].encode("latin-1")),
        (b"content-type", b"application/json"),
        (b"content-length", str(length).encode("ascii")),
        (b"x-request-id", b"compared-request"),
    ]
    with anyio.fail_after(10):
        sent = await posted(app, headers, receive)
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return sent[0]["status"], list(sent[0]["headers"]), _COMPUTED_AT.sub(b"T", body)


def _arriving(*messages: dict[str, Any], then: str = "wait") -> Receive:
    """A ``receive`` giving ``messages`` in turn, then waiting forever (``wait``) or saying the
    client is gone (``disconnect``)."""
    left = list(messages)

    async def receive() -> dict[str, Any]:
        if left:
            return left.pop(0)
        if then == "disconnect":
            return {"type": "http.disconnect"}
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    return receive


def _chunk(body: bytes, *, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


async def test_a_body_arriving_in_pieces_late_or_never_is_answered_as_the_route_answers_it(
    bounded: Litestar, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _asked(QUESTION)
    half = len(asked) // 2
    cases: list[tuple[str, int, Callable[[], Receive], int]] = [
        ("in two pieces", len(asked), lambda: _arriving(
            _chunk(asked[:half], more=True), _chunk(asked[half:], more=False)), 200),
        ("never", len(asked), lambda: _arriving(), 408),
        ("half, then nothing", len(asked), lambda: _arriving(
            _chunk(asked[:half], more=True)), 408),
        ("the client gone mid-body", len(asked), lambda: _arriving(
            _chunk(asked[:half], more=True), then="disconnect"), 500),
        ("more than declared, past the bound", 10, lambda: _arriving(
            *[_chunk(b" " * 1024, more=True) for _ in range(5)]), 413),
    ]  # fmt: skip
    for name, length, receive, status in cases:
        with _spied(monkeypatch) as spied:
            monkeypatch.setattr(query_path, "ENABLED", True)
            path = await _raw(bounded, length, receive())
            monkeypatch.setattr(query_path, "ENABLED", False)
            route = await _raw(bounded, length, receive())
        assert path == route, name
        assert spied[:1] == [True], name
        assert path[0] == status, name


@pytest.fixture(scope="module")
async def multi_user(
    tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[Litestar]:
    """The multi-user example: audiences restrict two metrics, tokens carry scopes."""
    config = write_multi_user(tmp_path_factory.mktemp("query-path-users"), example_dir, PAIR)
    async with assembled(config) as started:
        yield started.app


@pytest.mark.parametrize(
    ("who", "changes", "expected"),
    [
        ("every scope, no group", {}, {200, 404}),
        ("finance-team", {"groups": ["finance-team"]}, {200, 404}),
        ("directors", {"groups": ["directors"]}, {200}),
        ("catalog scope only", {"scope": "catalog:read"}, {403}),
        ("expired", {"exp": 1}, {401}),
    ],
)
async def test_the_callers_scopes_and_audiences_decide_as_on_the_route(
    multi_user: Litestar,
    monkeypatch: pytest.MonkeyPatch,
    who: str,
    changes: dict[str, Any],
    expected: set[int],
) -> None:
    auth = {"Authorization": f"Bearer {mint(PAIR, claims(**changes))}"}
    restricted = {**EXAMPLE_QUESTION, "metrics": ["return_rate", "average_order_value"]}
    cases = [
        ("open metric", _post(PLAIN, _asked(EXAMPLE_QUESTION))),
        ("restricted metrics", _post(PLAIN, _asked(restricted))),
    ]
    statuses = await _compare(multi_user, cases, True, monkeypatch, auth)
    assert set(statuses) == expected, who


async def test_a_question_uvicorn_reads_off_a_socket_takes_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The wiring ``sutura serve`` runs: uvicorn, configured as it configures it, parses a
    real request off a socket into the scope the path reads, and the path answers it."""
    config = write_deployment(tmp_path)
    bounds = ConnectionBounds(header_seconds=10.0, max_connections=64)
    async with assembled(config) as started:
        listener = bind("127.0.0.1", 0)
        port = listener.getsockname()[1]
        server = uvicorn.Server(uvicorn_config(started.app, bounds))
        with _spied(monkeypatch) as spied, anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(server.serve, [listener])
                while not server.started:
                    await anyio.sleep(0.01)
                base = f"http://127.0.0.1:{port}"
                async with httpx2.AsyncClient(base_url=base, timeout=10) as http:
                    response = await http.post("/v1/query", content=_asked(QUESTION), headers={
                        **AUTH, **PLAIN})  # fmt: skip
                server.should_exit = True
    assert response.status_code == 200
    assert response.headers["x-request-id"] == "compared-request"
    assert spied == [True]
