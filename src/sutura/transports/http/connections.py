"""Connection bounds under uvicorn: how long and how large a request's headers may be, and how
many connections are held at once.

uvicorn's HTTP protocol (on ``httptools``, the C parser) waits for a request's headers without a
clock (an idle or half-written connection is held for ever), takes headers of any size, and
accepts connections until the process runs out of file descriptors, after which nothing —
``/health`` included — is answered. :func:`bounded_protocol` gives it an HTTP protocol that

* closes a connection whose request headers have not all arrived within
  ``server.header_timeout_seconds`` (the body is bounded by the request deadline, 408);
* answers ``400`` and closes a connection whose request line and headers pass
  :data:`MAX_HEAD_BYTES`, plus the longest token the deployment accepts
  (:func:`head_limit`), so every token the verifier may accept reaches it and every longer one
  gets the verifier's answer: when the header that passes the limit is the one carrying the
  token, the answer is the ``401 unauthorized`` every refused token gets, with its
  ``WWW-Authenticate`` challenge (then the connection lingers a moment, so the client reads
  it). The limit also holds for a header still arriving: the parser keeps a header's bytes
  until its line ends, so a head not yet complete is refused once it has passed the limit by
  one read;
* holds at most ``max_connections`` connections: a connection past the cap takes the place of
  the one that has waited longest for headers (an idle or half-written one), so a flood of idle
  connections cannot lock out a real request; when every connection is busy with a request, the
  newcomer is closed instead. :func:`connection_cap` keeps the cap below the process's
  descriptor limit, so accepting never fails for want of a descriptor.
"""

import asyncio
import logging
import resource
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Final

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from sutura.transports.http.wire import FailureCode, encode_wire, failure_body

ACCEPT_BACKLOG: Final = 32
"""The listen backlog, which is also how many connections one wake-up of the event loop accepts
before any of them is seen (and, past the cap, closed); a few wake-ups may pass before then."""

KERNEL_BACKLOG: Final = 2048
"""The kernel's queue of connections not yet accepted (they hold no descriptor of ours)."""

DESCRIPTORS_KEPT: Final = 3 * ACCEPT_BACKLOG + 64
"""Descriptors left for bursts of accepts and everything but client connections (sources,
logs, the listener)."""

MAX_HEAD_BYTES: Final = 16 * 1024
"""The most a request line and its headers may hold (names, values and the target), beside
the token (:func:`head_limit`)."""

LINGER_SECONDS: Final = 1.0
"""How long a connection refused for a token too long to read goes on reading (and dropping)
what the client still sends, its refusal sent and its side closed: closed at once with bytes
unread, the client's kernel would reset it and could drop the refusal unread."""

_NAME_BYTES: Final = 64
"""How much of the line a header still arriving begins with is kept, to read its name."""

log = logging.getLogger("sutura.http")


class HeadTooLargeError(Exception):
    """A request's line and headers passed :data:`MAX_HEAD_BYTES` (the parser answers 400)."""


@dataclass(frozen=True, slots=True)
class TokenHeader:
    """The header a caller's token arrives in, and the response refusing one too long to read."""

    name: bytes
    refusal: bytes


@dataclass(frozen=True, slots=True)
class ConnectionBounds:
    """``server.header_timeout_seconds``, the connection cap and the head limit in force."""

    header_seconds: float
    max_connections: int
    head_bytes: int = MAX_HEAD_BYTES
    token: TokenHeader | None = None


def head_limit(token_bytes: int) -> int:
    """The most a request's line and headers may hold when a token of ``token_bytes`` must fit:
    :data:`MAX_HEAD_BYTES` for everything else, plus the token and its ``Bearer`` scheme.

    >>> head_limit(0), head_limit(65536)
    (16384, 81927)
    """
    return MAX_HEAD_BYTES + (token_bytes + len("Bearer ") if token_bytes else 0)


def token_header(name: str, challenge: str) -> TokenHeader:
    """The token's header ``name``, and the ``401`` a request gets when it is too long to read:
    the failure body and challenge every refused token gets; the connection is closed."""
    body = encode_wire(failure_body(FailureCode.UNAUTHORIZED))
    head = (
        "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
        f"cache-control: private, no-store\r\nwww-authenticate: {challenge}\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return TokenHeader(name.lower().encode("latin-1"), head.encode("latin-1") + body)


def connection_cap(configured: int, descriptor_limit: int) -> int:
    """``server.max_connections``, lowered to fit the process's descriptor limit.

    >>> connection_cap(256, 1024), connection_cap(256, 256), connection_cap(256, 10)
    (256, 96, 1)
    """
    if descriptor_limit == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, descriptor_limit - DESCRIPTORS_KEPT))


def descriptor_limit() -> int:
    """This process's soft limit on open file descriptors."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class BoundedHttp(HttpToolsProtocol):
    """uvicorn's httptools protocol with a header clock, a header size bound and a connection
    cap (see the module)."""

    bounds: ClassVar[ConnectionBounds] = ConnectionBounds(header_seconds=10.0, max_connections=256)
    _header_timer: asyncio.TimerHandle | None = None
    _waiting_since = 0.0
    _head_bytes = 0
    _in_head = False
    _arrived = 0
    _line = b""
    _too_long: bytes | None = None
    _lingering = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        """Start the header clock; past the cap, make room (or close this one)."""
        super().connection_made(transport)
        self._arm()
        if len(self.connections) > self.bounds.max_connections:
            _evict(self.connections, self)

    def connection_lost(self, exc: Exception | None) -> None:
        """Stop the clock."""
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Start the clock when the first bytes of a request's headers arrive; stop it once
        they are all in. Refuse a head still arriving once it has passed the limit.

        A head that arrives whole in one read (the usual request) is in before the clock
        would start: the clock starts, at the loop time of this read, only when it is not."""
        if self._lingering:
            return  # refused: what still arrives is dropped unread
        starts = self._header_timer is None and self.waiting_for_headers()
        if starts:
            self._waiting_since = self.loop.time()
        within = self._in_head
        super().data_received(data)
        if self._in_head and not self.transport.is_closing():
            self._arriving(data, counted=within)
        if not self.waiting_for_headers():
            self._disarm()  # the headers are in; the request deadline bounds the rest
        elif starts and self._header_timer is None:
            self._arm(self._waiting_since)

    def _arriving(self, data: bytes, *, counted: bool) -> None:
        """Count a read of a head not yet complete (the read that began it is not counted:
        the head passes the limit by one read at most), and keep the start of its last line."""
        if counted:
            self._arrived += len(data)
        end = data.rfind(b"\n")
        if end >= 0:
            self._line = data[end + 1 : end + 1 + _NAME_BYTES]
        elif len(self._line) < _NAME_BYTES:
            self._line += data[: _NAME_BYTES - len(self._line)]
        if self._arrived > self.bounds.head_bytes:
            self._refuse_head(self._line.partition(b":")[0].strip().lower())

    def _refuse_head(self, name: bytes | None) -> None:
        """Answer a head past the limit (the token's ``401``, or the parser's ``400``) and
        close."""
        self._disarm()
        token = self.bounds.token
        if token is not None and name == token.name:
            self.transport.write(token.refusal)
            self._linger()
        else:
            self.send_400_response("Invalid HTTP request received.")

    def _linger(self) -> None:
        """Close the sending side after the refusal, drop what still arrives, and close the
        connection :data:`LINGER_SECONDS` later (or when the client does)."""
        self._lingering = True
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def send_400_response(self, msg: str) -> None:
        """The parser's ``400``, or the token's ``401`` when its header passed the limit."""
        refused, self._too_long = self._too_long, None
        if refused is not None:
            self._refuse_head(refused)
            return
        super().send_400_response(msg)

    def on_message_begin(self) -> None:
        """A request begins: its head is counted from here."""
        self._head_bytes = 0
        self._in_head = True
        self._arrived = 0
        self._line = b""
        super().on_message_begin()

    def on_headers_complete(self) -> None:
        """The head is in."""
        self._in_head = False
        super().on_headers_complete()

    def on_url(self, url: bytes) -> None:
        """Count the request target (it may come in pieces)."""
        self._count(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        """Count each header (a line of ``name: value``; :meth:`_count`, written out here: a
        request has a dozen)."""
        self._head_bytes += len(name) + len(value) + 4
        if self._head_bytes > self.bounds.head_bytes:
            self._too_long = name.lower()  # read back by send_400_response
            raise HeadTooLargeError
        super().on_header(name, value)

    def _count(self, size: int, name: bytes = b"") -> None:
        self._head_bytes += size
        if self._head_bytes > self.bounds.head_bytes:
            self._too_long = name.lower()  # read back by send_400_response
            raise HeadTooLargeError  # out of the parser as an error: answered, then closed

    def waiting_for_headers(self) -> bool:
        """No request is being answered and no request's headers are all in: the next
        one's headers are awaited."""
        # uvicorn types ``cycle`` as always set; it is None until the first request. A new
        # cycle starts once a request's headers are complete.
        cycle: object = self.cycle
        idle = cycle is None or self.cycle.response_complete
        return idle and not self.transport.is_closing()

    def close_idle(self) -> None:
        """Close the connection (it waits for headers; nothing is owed to it)."""
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()

    def _arm(self, since: float | None = None) -> None:
        self._waiting_since = self.loop.time() if since is None else since
        self._header_timer = self.loop.call_at(
            self._waiting_since + self.bounds.header_seconds, self._headers_late
        )

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if self.waiting_for_headers():
            self.close_idle()


def bounded_protocol(bounds: ConnectionBounds) -> type[BoundedHttp]:
    """The protocol class uvicorn is given, with ``bounds`` applied."""
    return type("BoundedHttp", (BoundedHttp,), {"bounds": bounds})


def _evict(connections: Iterable[object], newcomer: BoundedHttp) -> None:
    """Close the connection that has waited longest for headers, or else ``newcomer``."""
    bounded = [c for c in connections if isinstance(c, BoundedHttp)]
    waiting = [c for c in bounded if c.waiting_for_headers()]
    victim = min(waiting, key=lambda c: c._waiting_since, default=newcomer)
    log.debug("connections: at the cap; closing the one idle longest")
    victim.close_idle()
