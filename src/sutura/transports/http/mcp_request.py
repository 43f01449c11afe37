"""What a ``/mcp`` request must be before the MCP SDK reads it, so that every refusal is sutura's.

Left to itself, the SDK's streamable HTTP transport answers what it refuses in its own words —
a plain-text ``413``, a bodyless ``405`` or ``406``, a ``400`` whose JSON-RPC error quotes its
validator (and, in it, the caller's input) — and answers a ``GET`` with a server-to-client
event stream that carries nothing but a ping every 15 s, held for as long as the client
stays. ``/mcp`` is stateless and never sends a message unasked, so:

* only ``POST`` is served. Any other method is ``405 method_not_allowed`` with ``Allow:
  POST``, before anything else is checked: the MCP transport's answer for a server that
  offers no stream on ``GET`` and lets no client end a session with ``DELETE``;
* the body must be declared ``application/json`` (``415 unsupported_media_type``) and the
  client must accept ``application/json`` (``406 not_acceptable``), after the token;
* the body is read here, within ``server.request_timeout_seconds`` (``408 timeout``) and
  ``server.max_body_bytes`` (``413 too_large``; a declared ``Content-Length`` over it is
  refused unread), and must be one JSON-RPC message by the SDK's own validator: not a batch,
  not malformed (``400 not_a_message``, a fixed sentence). The SDK then reads it from here;
* a response the SDK still starts with a status of 400 or more and a body that is not JSON
  (JSON-RPC errors are the protocol's own channel) is replaced by the failure for that status.

>>> accepts_json(b"application/json, text/event-stream"), accepts_json(b"*/*")
(True, True)
>>> accepts_json(b"text/event-stream"), accepts_json(None)
(False, False)
"""

import asyncio
from collections.abc import Iterable
from typing import Any, Final, NamedTuple, cast

import pydantic_core
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler
from litestar.types import Send as LitestarSend
from mcp_types import JSONRPCMessage, jsonrpc_message_adapter
from starlette.types import Message, Receive, Send

from sutura.transports.http.errors import HttpFailureError, failure_code_of
from sutura.transports.http.gate import send_failure
from sutura.transports.http.request_ids import header_of
from sutura.transports.http.wire import FailureCode

ALLOW: Final = {"Allow": "POST"}
_JSON_TYPES: Final = frozenset({b"application/json", b"application/*", b"*/*"})


def accepts_json(accept: bytes | None) -> bool:
    """Whether an ``Accept`` header admits ``application/json`` (the MCP transport requires the
    header, so none admits nothing)."""
    if accept is None:
        return False
    types = (part.split(b";", 1)[0].strip().lower() for part in accept.split(b","))
    return not _JSON_TYPES.isdisjoint(types)


async def post_only(connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
    """Refuse every method but ``POST`` (``405``, ``Allow: POST``)."""
    if connection.scope.get("method") != "POST":
        raise HttpFailureError.of(FailureCode.METHOD_NOT_ALLOWED, ALLOW)


async def json_accepted(
    connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler
) -> None:
    """Refuse a client that does not accept a JSON reply (``406``)."""
    if not accepts_json(header_of(connection.scope, b"accept")):
        raise HttpFailureError.of(FailureCode.NOT_ACCEPTABLE)


class ReadMessage(NamedTuple):
    """A request's body, and the one JSON-RPC message it holds, as the SDK reads it."""

    body: bytes
    message: JSONRPCMessage


async def read_message(
    headers: Iterable[tuple[bytes, bytes]], receive: Receive, *, limit: int, seconds: float
) -> ReadMessage:
    """The request's body: at most ``limit`` bytes, all in within ``seconds``, one JSON-RPC
    message; otherwise the failure (``413``, ``408``, ``400 not_a_message``)."""
    declared = dict(headers).get(b"content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HttpFailureError.of(FailureCode.TOO_LARGE)
    body = bytearray()
    # asyncio's own timeout, as the request deadline of /v1 (limits.py): this app is served by
    # uvicorn on asyncio only, and an anyio cancel scope with its lookups costs each request
    # more than the rest of this function.
    try:
        async with asyncio.timeout(seconds):
            more = True
            while more:
                message = await receive()
                if message["type"] != "http.request":
                    raise HttpFailureError.of(FailureCode.BAD_REQUEST)  # the client went away
                body += message.get("body", b"")
                if len(body) > limit:
                    raise HttpFailureError.of(FailureCode.TOO_LARGE)
                more = message.get("more_body", False)
    except TimeoutError:
        raise HttpFailureError.of(FailureCode.TIMEOUT) from None
    read = bytes(body)
    held = _one_message(read)
    if held is None:
        raise HttpFailureError.of(FailureCode.NOT_A_MESSAGE)
    return ReadMessage(read, held)


def _one_message(body: bytes) -> JSONRPCMessage | None:
    # The SDK's own parser and validator, as its transport reads a body: a body it accepts here,
    # it accepts there, and the message is the one it reads.
    try:
        return jsonrpc_message_adapter.validate_python(pydantic_core.from_json(body), by_name=False)
    except (ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
        return None


def replayed(body: bytes, receive: Receive) -> Receive:
    """``receive`` with the body, already read, handed over once more first."""
    pending: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Message:
        return pending.pop() if pending else await receive()

    return again


def enveloped(send: Send) -> Send:
    """``send``, with a failure the SDK starts in its own words (a status of 400 or more, a
    body that is not JSON) replaced by sutura's failure for that status."""
    replaced = False

    async def sending(message: Message) -> None:
        nonlocal replaced
        if message["type"] == "http.response.start" and _foreign_failure(message):
            replaced = True
            code = failure_code_of(message["status"])
            allow = ALLOW if code is FailureCode.METHOD_NOT_ALLOWED else None
            # litestar's and starlette's ASGI types describe the same callable.
            await send_failure(cast("LitestarSend", send), code, allow)
            return
        if replaced:
            return  # the SDK's own body, dropped
        await send(message)

    return sending


def _foreign_failure(start: Message) -> bool:
    status: int = start["status"]
    media = dict(start.get("headers", [])).get(b"content-type", b"")
    return status >= 400 and media.split(b";", 1)[0].strip().lower() != b"application/json"
