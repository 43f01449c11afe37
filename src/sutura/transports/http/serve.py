"""Starting and serving the HTTP surface: the one path ``sutura serve`` takes.

:func:`started_app` opens the service from the loaded settings (sources opened, models
checked, anchors reproduced) for a block, after refusing a bind that would serve without a
token where one is required, and builds the app over it. :func:`serve` runs it under uvicorn
on a socket bound beforehand, so the address (even with port 0) is known and announced before
the first request. SIGINT and SIGTERM stop it gracefully; the service is closed on the way out,
in the event loop it was opened in.
"""

import signal
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager, nullcontext
from dataclasses import dataclass

import uvicorn
from litestar import Litestar
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.loading import Loaded
from sutura.boundary.service import Service
from sutura.boundary.startup import open_service
from sutura.transports.http.app import build_app
from sutura.transports.http.auth import Authentication, authentication_of, bind_problems
from sutura.transports.http.connections import (
    ACCEPT_BACKLOG,
    KERNEL_BACKLOG,
    ConnectionBounds,
    bounded_protocol,
    connection_cap,
    descriptor_limit,
    head_limit,
    token_header,
)
from sutura.transports.http.limits import Admission
from sutura.transports.http.mcp_route import McpOf
from sutura.transports.http.switching import prompt_switches


@dataclass(frozen=True, slots=True)
class Started:
    """A built app, the service under it and the address it is to be served on."""

    app: Litestar
    service: Service
    host: str
    port: int
    authentication: Authentication


@asynccontextmanager
async def started_app(
    loaded: Loaded,
    *,
    mcp: McpOf | None,
    host: str | None = None,
    port: int | None = None,
) -> AsyncIterator[Result[Started, list[str]]]:
    """The app over a service opened for the block, or every reason not to serve.

    ``mcp`` makes the ``/mcp`` endpoint over the opened service when ``server.mcp.enabled``
    (the composer that starts the server hands it in: this module imports no MCP code; None
    serves no ``/mcp``). A bind that would serve without a token where one is required is
    refused before any source is opened.
    """
    settings = loaded.loaded.settings
    bind_host = settings.server.host if host is None else host
    token = settings.security.access_token
    inbound = settings.security.inbound is not None
    problems = bind_problems(settings.environment, bind_host, token=token, inbound=inbound)
    if problems:
        yield Failure(problems)
        return
    async with open_service(loaded, anchors=True, extents=True) as opened:
        if not is_successful(opened):
            yield Failure(opened.failure())
            return
        service = opened.unwrap()
        authentication = authentication_of(settings, loaded.loaded.base_dir)
        admission = Admission(settings.server.max_concurrent_queries)
        remote = (
            mcp(service, admission.shedding())
            if mcp is not None and settings.server.mcp.enabled
            else None
        )
        app = build_app(
            service,
            settings,
            authentication,
            bind_host=bind_host,
            admission=admission,
            remote=remote,
        )
        bind_port = settings.server.port if port is None else port
        async with nullcontext() if remote is None else remote.running():
            yield Success(
                Started(
                    app=app,
                    service=service,
                    host=bind_host,
                    port=bind_port,
                    authentication=authentication,
                )
            )


class _Server(uvicorn.Server):
    """uvicorn's server, stopping on SIGINT/SIGTERM without re-raising them afterwards, so the
    caller can close the service and exit normally."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start serving; then widen the kernel's queue of pending connections again.

        The event loop accepts as many connections per wake-up as the backlog it was given
        (:data:`ACCEPT_BACKLOG`, kept small so the connection cap holds), and asyncio re-listens
        with it; the kernel's queue itself stays long, so a burst of clients is queued, not
        refused or reset.
        """
        await super().startup(sockets=sockets)
        for listener in sockets or []:
            listener.listen(KERNEL_BACKLOG)

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        """Ask the server to exit on SIGINT or SIGTERM while it serves."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        signals = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in signals}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio disables Nagle only on sockets that say they are TCP, and
    # without that every keep-alive response waits ~40 ms for a delayed ACK.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(KERNEL_BACKLOG)
    except OSError:
        listener.close()
        raise
    return listener


async def serve(
    loaded: Loaded,
    announce: Callable[[str], None],
    *,
    mcp: McpOf | None,
    host: str | None,
    port: int | None,
) -> list[str]:
    """Serve until a signal; ``announce`` receives the URL once bound; ``/mcp`` as
    :func:`started_app` says.

    Returns every reason it could not serve (none once it has served); the service is closed
    on the way out, in the same event loop it was opened in.
    """
    async with started_app(loaded, mcp=mcp, host=host, port=port) as ready:
        if not is_successful(ready):
            return ready.failure()
        started = ready.unwrap()
        try:
            listener = bind(started.host, started.port)
        except OSError as err:
            return [f"server: cannot listen on {started.host}:{started.port} ({err.strerror})"]
        server = loaded.loaded.settings.server
        carried = started.authentication.carried
        bounds = ConnectionBounds(
            header_seconds=server.header_timeout_seconds,
            max_connections=connection_cap(server.max_connections, descriptor_limit()),
            head_bytes=head_limit(0 if carried is None else carried.max_bytes),
            token=(
                None
                if carried is None
                else token_header(carried.header, started.authentication.challenge)
            ),
        )
        announce(_url(listener))
        with prompt_switches():  # statements keep moving while the loop is busy (switching.py)
            await _Server(uvicorn_config(started.app, bounds)).serve(sockets=[listener])
        return []


def uvicorn_config(app: Litestar, bounds: ConnectionBounds) -> uvicorn.Config:
    """How uvicorn serves ``app``: its own bounded protocol, no log of its own, no lifespan."""
    return uvicorn.Config(
        app,
        http=bounded_protocol(bounds),
        backlog=ACCEPT_BACKLOG,
        log_config=None,
        access_log=False,
        lifespan="off",
        proxy_headers=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )


def _url(listener: socket.socket) -> str:
    host, port = listener.getsockname()[:2]
    return (
        f"http://[{host}]:{port}" if listener.family == socket.AF_INET6 else f"http://{host}:{port}"
    )
