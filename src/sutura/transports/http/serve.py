"""Starting and serving the HTTP surface: the one path ``sutura serve`` takes.

:func:`start_app` starts the service from the settings (sources opened, anchors reproduced),
refuses a bind that would serve without a token where one is required, and builds the app from
what startup loaded. :func:`serve` runs it under uvicorn on a socket bound beforehand, so the
address (even with port 0) is known and announced before the first request. SIGINT and SIGTERM
stop it gracefully; the service is closed on the way out.
"""

import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Protocol

import uvicorn
from litestar import Litestar
from returns.result import Failure, Result, Success

from sutura.boundary.answering import Service
from sutura.transports.http.app import build_app
from sutura.transports.http.auth import bind_problems


class Starter(Protocol):
    """Whatever starts a service from the settings (the composition root's wiring)."""

    async def start(self, *, anchors: bool = True) -> Result[Service, list[str]]:
        """A running service, or every reason there is none."""
        ...


@dataclass(frozen=True, slots=True)
class Started:
    """A built app, the service under it and the address it is to be served on."""

    app: Litestar
    service: Service
    host: str
    port: int


async def start_app(
    starter: Starter, *, host: str | None = None, port: int | None = None
) -> Result[Started, list[str]]:
    """Start the service and build the app, or every reason not to serve."""
    started = await starter.start(anchors=True)
    if not isinstance(started, Success):
        return Failure(started.failure())
    service: Service = started.unwrap()
    settings = service.settings
    bind_host = settings.server.host if host is None else host
    token = settings.security.access_token
    problems = bind_problems(settings.environment, bind_host, token=token)
    if problems:
        await service.close()
        return Failure(problems)
    app = build_app(service, settings)
    bind_port = settings.server.port if port is None else port
    return Success(Started(app=app, service=service, host=bind_host, port=bind_port))


class _Server(uvicorn.Server):
    """uvicorn's server, stopping on SIGINT/SIGTERM without re-raising them afterwards, so the
    caller can close the service and exit normally."""

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
        listener.listen(2048)
    except OSError:
        listener.close()
        raise
    return listener


async def serve(started: Started, announce: Callable[[str], None]) -> list[str]:
    """Serve ``started.app`` until a signal; ``announce`` receives the URL once bound.

    Returns the reasons it could not listen (none once it has served), and closes the service.
    """
    try:
        try:
            listener = bind(started.host, started.port)
        except OSError as err:
            return [f"server: cannot listen on {started.host}:{started.port} ({err.strerror})"]
        config = uvicorn.Config(
            started.app,
            log_config=None,
            access_log=False,
            lifespan="off",
            proxy_headers=False,
            server_header=False,
            timeout_graceful_shutdown=5,
        )
        announce(_url(listener))
        await _Server(config).serve(sockets=[listener])
        return []
    finally:
        await started.service.close()


def _url(listener: socket.socket) -> str:
    host, port = listener.getsockname()[:2]
    return (
        f"http://[{host}]:{port}" if listener.family == socket.AF_INET6 else f"http://{host}:{port}"
    )
