r"""A tool result's structured half, written as the bytes msgspec encoded, behind the SDK.

The SDK turns a tool result into JSON through its message models: the result is dumped,
validated against the protocol's schema and dumped again, wrapped in a JSON-RPC response and
serialised, each pass visiting every cell of ``structured_content``, after the structured half
(already JSON, encoded once by :mod:`sutura.core.tool.codec`) was decoded into Python values
for it. For 50,000 rows × 10 columns that was more than the query. So, where sutura's own transport
writes the JSON (``sutura mcp``'s stdout, ``/mcp``'s response body), a tool result carries a
*stand-in* through the SDK: ``structured_content`` is ``{"sutura.encoded": "<token>"}``, and the
transport writes the structured half's bytes where the SDK wrote the stand-in, escaped as the
SDK's own encoder would have escaped them. Every other byte is the SDK's: the envelope, the id,
the text block, the protocol's own fields. The contract tests hold the bytes equal to the SDK's
own encoding of the whole result, over the hostile corpus, on stdio and on ``/mcp`` in both eras.

Where no transport of sutura's writes the JSON (an in-process client, the console), the result
is the SDK's plain ``CallToolResult`` with the decoded structured half.

Each request keeps its own structured halves (:class:`Kept`): over stdio, the task that runs a
request writes its response; over ``/mcp``, the request's task holds them for the tasks the
SDK starts from it. Nothing outlives the request.

>>> kept = Kept()
>>> stand_in = kept.keep(b'{"outcome":"answer"}')
>>> line = b'{"id":1,"result":{"structuredContent":' + msgspec.json.encode(stand_in) + b"}}"
>>> kept.splice(line, ascii_only=False)
b'{"id":1,"result":{"structuredContent":{"outcome":"answer"}}}'
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType
from typing import Any, Final, Self

import mcp_types as types
import msgspec
from mcp.shared._stream_protocols import WriteStream
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.shared.message import SessionMessage
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import PrivateAttr
from starlette.types import Message, Scope, Send

from sutura.boundary.generated_ids import generated_id

KEY: Final = "sutura.encoded"
"""The one key of a stand-in: no structured half has a key with a dot."""

_KEPT: Final[ContextVar["Kept | None"]] = ContextVar("sutura.mcp.kept", default=None)
_PER_TASK: Final[ContextVar[bool]] = ContextVar("sutura.mcp.kept_per_task", default=False)
_NOT_ASCII: Final = re.compile("[^\x00-\x7e]")
_VERSION_HEADER: Final = MCP_PROTOCOL_VERSION_HEADER.lower().encode("ascii")


def _ascii_escape(found: re.Match[str]) -> str:
    """One character as ``json.dumps(ensure_ascii=True)`` writes it (a surrogate pair above
    the Basic Multilingual Plane)."""
    point = ord(found.group())
    if point > 0xFFFF:
        point -= 0x10000
        return f"\\u{0xD800 | (point >> 10):04x}\\u{0xDC00 | (point & 0x3FF):04x}"
    return f"\\u{point:04x}"


def as_ascii_json(data: bytes) -> bytes:
    r"""JSON text as ``json.dumps`` writes it with ``ensure_ascii``: every character outside
    printable ASCII that msgspec writes raw (DEL and beyond) as its ``\u`` escape.

    >>> as_ascii_json('["é\x7f😀"]'.encode())
    b'["\\u00e9\\u007f\\ud83d\\ude00"]'
    """
    if data.isascii() and b"\x7f" not in data:
        return data
    return _NOT_ASCII.sub(_ascii_escape, data.decode("utf-8")).encode("ascii")


class Kept:
    """The structured halves of one request's tool results, by the token of their stand-in."""

    def __init__(self) -> None:
        self._halves: dict[str, bytes] = {}

    def __bool__(self) -> bool:
        return bool(self._halves)

    def keep(self, structured: bytes) -> dict[str, str]:
        """Keep ``structured`` and return the stand-in carried through the SDK in its place."""
        token = generated_id()  # unique among the request's halves: the splice checks it
        self._halves[token] = structured
        return {KEY: token}

    def splice(self, encoded: bytes, *, ascii_only: bool) -> bytes:
        """``encoded`` (the SDK's JSON) with each stand-in replaced by its structured half,
        as the SDK's encoder writes it (``ascii_only``: ``json.dumps``' default; else
        msgspec's and pydantic's UTF-8). Raises when a kept half's stand-in is missing: the
        SDK wrote it otherwise, and sending it would send the stand-in as the answer."""
        for token in list(self._halves):
            stand_in = msgspec.json.encode({KEY: token})
            if encoded.count(stand_in) != 1:
                raise RuntimeError("a structured half's stand-in is not in the SDK's JSON")
            data = self._halves.pop(token)
            encoded = encoded.replace(stand_in, as_ascii_json(data) if ascii_only else data)
        return encoded


def stand_in(structured: bytes) -> dict[str, str] | None:
    """The stand-in for ``structured`` when the transport of the current request writes kept
    halves itself; None when it does not (the SDK's plain result is then the one sent)."""
    kept = _KEPT.get()
    if kept is None:
        if not _PER_TASK.get():
            return None
        kept = Kept()
        _KEPT.set(kept)  # the task's own: its response is written from it
    return kept.keep(structured)


def keep_per_task() -> None:
    """Tool calls of the current run keep their halves in their own task (stdio, where the task
    that runs a request writes its response)."""
    _PER_TASK.set(True)


@contextmanager
def kept_for_request() -> Iterator[Kept]:
    """A holder for the current request, seen by every task the SDK starts from it (``/mcp``),
    for the block."""
    kept = Kept()
    token = _KEPT.set(kept)
    try:
        yield kept
    finally:
        _KEPT.reset(token)


class _Written(types.JSONRPCResponse):
    """A response whose JSON text was written already (the SDK's, with the halves spliced)."""

    _text: str = PrivateAttr(default="")

    def model_dump_json(self, **_: Any) -> str:
        """The JSON text written already (as ``by_alias=True, exclude_unset=True`` dumps it)."""
        return self._text


def spliced_response(message: types.JSONRPCResponse) -> types.JSONRPCResponse:
    """``message`` as the stdio writer will serialise it: its kept halves spliced in, when the
    current task kept any."""
    if not _KEPT.get():
        return message
    written = _Written.model_construct(jsonrpc=message.jsonrpc, id=message.id, result={})
    written._text = spliced_json(message)
    return written


def spliced_json(message: types.JSONRPCResponse) -> str:
    """``message``'s JSON as the SDK's stdio writer writes it (``by_alias``,
    ``exclude_unset``), with the halves the current task kept spliced in."""
    text = message.model_dump_json(by_alias=True, exclude_unset=True)
    kept = _KEPT.get()
    if not kept:
        return text
    return kept.splice(text.encode("utf-8"), ascii_only=False).decode("utf-8")


def _is_modern(scope: Scope) -> bool:
    """Whether the SDK answers this ``/mcp`` request in the protocol's modern era (a version
    header that is not a handshake era's), whose JSON it writes with ``json.dumps``'
    ASCII-only default; the handshake era's it writes with pydantic, in UTF-8."""
    for name, value in scope["headers"]:
        if name == _VERSION_HEADER:  # the first one
            return value.decode("latin-1") not in HANDSHAKE_PROTOCOL_VERSIONS
    return False


def spliced_send(scope: Scope, send: Send, kept: Kept) -> Send:
    """``send`` for one ``/mcp`` response: a body holding stand-ins goes out with the kept
    halves spliced in, and its ``content-length`` says the length sent."""
    ascii_only = _is_modern(scope)
    held: list[Message] = []

    async def spliced(message: Message) -> None:
        if message["type"] == "http.response.start" and kept:
            held.append(message)  # its length changes with the body
            return
        if message["type"] == "http.response.body" and kept:
            body = kept.splice(bytes(message.get("body", b"")), ascii_only=ascii_only)
            message = {**message, "body": body}
            if held:
                await send(_with_length(held.pop(), None if message.get("more_body") else body))
        elif held:
            await send(held.pop())
        await send(message)

    return spliced


def _with_length(start: Message, body: bytes | None) -> Message:
    """A response start whose ``content-length`` is ``body``'s (dropped when the body comes in
    parts: the server then sends it chunked)."""
    headers = [(name, value) for name, value in start["headers"] if name != b"content-length"]
    if body is not None:
        headers.append((b"content-length", str(len(body)).encode("ascii")))
    return {**start, "headers": headers}


class SplicedWrites:
    """The server's write stream over stdio, each response carrying its task's kept halves."""

    def __init__(self, inner: WriteStream[SessionMessage]) -> None:
        self._inner = inner

    async def send(self, item: SessionMessage, /) -> None:
        """Write ``item``; a response is written with its kept halves spliced in."""
        if isinstance(item.message, types.JSONRPCResponse):
            item = SessionMessage(spliced_response(item.message), metadata=item.metadata)
        await self._inner.send(item)

    async def aclose(self) -> None:
        """Close the stream underneath."""
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None
