"""The ASGI application: one function builds it from a started service and the settings.

:func:`build_app` is the only place the HTTP surface meets the settings. It reads each one
once (the prose setting, the authentication, the limits) and hands it to the handler that needs
it, so no handler defaults a setting. Whether the deployment may serve without a token is
decided by ``sutura serve`` before this is called (see :mod:`sutura.transports.http.auth`).
A plain ``POST /v1/query`` is answered in front of the routing, by its route's own guards,
decoder and call, as the route answers it (:mod:`sutura.transports.http.query_path`).
"""

import logging
from pathlib import Path
from typing import Any, NamedTuple

from litestar import Litestar, Response, Router
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.middleware import DefineMiddleware

from sutura.boundary.service import Service
from sutura.core.settings import Settings, console_served
from sutura.core.tool.capability import Capability, listed_to_agents
from sutura.transports.http import routes
from sutura.transports.http.auth import Authentication, authentication_of
from sutura.transports.http.console.assets import asset_routes
from sutura.transports.http.console.routes import console_routes
from sutura.transports.http.errors import exception_handlers
from sutura.transports.http.gate import Gate, HostDecisions, allowed_hosts_for
from sutura.transports.http.limits import Admission
from sutura.transports.http.mcp_route import McpBounds, McpEndpoint, mcp_route
from sutura.transports.http.metrics import Metrics, metrics_route
from sutura.transports.http.openapi import CarriedSchema, StrictStructSchema, openapi_config
from sutura.transports.http.query_path import QueryPath
from sutura.transports.http.rate_limit import RateLimiter, rate_limit_guard
from sutura.transports.http.replies import failure_response
from sutura.transports.http.request_ids import RequestIds, stamp_response
from sutura.transports.http.wire import FailureCode, failure_body

log = logging.getLogger("sutura.http")


async def _docs_response(response: Response[Any]) -> Response[Any]:
    """Close the docs router's own HTML 404 into the failure channel, and forbid the docs page
    every script, style and fetch (it needs none)."""
    if response.status_code == 404:
        return failure_response(failure_body(FailureCode.NOT_FOUND))
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response


class _Surfaces:
    """What the app serves beside ``/v1``: the shared admission, ``/mcp`` and the hosts it
    answers to."""

    def __init__(
        self, admission: Admission, remote: McpEndpoint | None, hosts: HostDecisions
    ) -> None:
        self.admission = admission
        self.remote = remote
        self.hosts = hosts


class _Routes(NamedTuple):
    """The app's route handlers, and what ``POST /v1/query``'s own path shares with its route."""

    handlers: list[BaseRouteHandler]
    query: HTTPRouteHandler
    calls: routes.Calls


def _routes(
    service: Service, settings: Settings, authentication: Authentication, surfaces: _Surfaces
) -> _Routes:
    server = settings.server
    calls = routes.Calls(
        service, surfaces.admission, server.request_timeout_seconds, authentication
    )
    limiter = None
    if server.rate_limit.per_minute is not None:
        limiter = RateLimiter(
            per_minute=server.rate_limit.per_minute, burst=server.rate_limit.burst
        )
        calls.guards.append(rate_limit_guard(limiter))  # after authentication: it names the caller
    by_capability = {capability: routes.route_of(capability, calls) for capability in Capability}
    capability_routes = list(by_capability.values())
    query = by_capability[Capability.ASK_METRIC]
    inbound = settings.security.inbound
    discovery = [] if inbound is None else [routes.protected_resource_route(inbound)]
    base: list[BaseRouteHandler] = [routes.health, routes.openapi_document, *discovery]
    base += capability_routes
    if surfaces.remote is not None:
        bounds = McpBounds(server.max_body_bytes, server.request_timeout_seconds)
        base.append(mcp_route(surfaces.remote, calls.guards, surfaces.hosts.allowed, bounds))
    if settings.security.metrics_token:
        metrics = Metrics(
            service,
            settings,
            surfaces.admission,
            lambda: 0 if limiter is None else limiter.limited,
        )
        service.watch(metrics)
        base.append(metrics_route(metrics, settings.security.metrics_token))
    if not console_served(settings):
        return _Routes(base, query, calls)
    # An agent view of every tool an agent could be given (run_sql's shows whether it is);
    # of compile_question only when agents are given it.
    shown = listed_to_agents(frozenset(Capability), settings.tools.compile_question.enabled)
    return _Routes([*base, *asset_routes(), *console_routes(calls, shown)], query, calls)


def build_app(
    service: Service,
    settings: Settings,
    authentication: Authentication | None = None,
    *,
    bind_host: str | None = None,
    admission: Admission | None = None,
    remote: McpEndpoint | None = None,
) -> Litestar:
    """The HTTP surface over ``service``, bounded and guarded as ``settings`` say, with MCP at
    ``/mcp`` when ``remote`` is given (sharing ``admission``, the one every query takes).

    ``authentication`` defaults to the one the settings ask for, with key-set files read
    relative to the working directory; ``sutura serve`` passes its own (relative to the
    settings directory). ``bind_host`` (``server.host`` unless given) decides which ``Host``
    headers are answered when ``server.allowed_hosts`` is not set (see
    :mod:`sutura.transports.http.gate`).
    """
    if authentication is None:
        authentication = authentication_of(settings, Path.cwd())
    host = settings.server.host if bind_host is None else bind_host
    slots = Admission(settings.server.max_concurrent_queries) if admission is None else admission
    hosts = HostDecisions(allowed_hosts_for(host, settings.server.allowed_hosts))
    surfaces = _Surfaces(slots, remote, hosts)
    config = openapi_config()
    config.openapi_router = Router(
        "/docs", route_handlers=[], include_in_schema=False, after_request=_docs_response
    )
    built = _routes(service, settings, authentication, surfaces)
    app = Litestar(
        route_handlers=built.handlers,
        exception_handlers=exception_handlers(),
        openapi_config=config,
        plugins=[CarriedSchema(), StrictStructSchema()],
        middleware=[RequestIds, DefineMiddleware(Gate, hosts=hosts)],
        before_send=[stamp_response],
        request_max_body_size=settings.server.max_body_bytes,
        logging_config=None,
        debug=False,
    )
    # In front of the routing, under the app's own scope and before_send (query_path.py).
    app.asgi_handler = QueryPath(
        app.asgi_handler,
        route=built.query,
        calls=built.calls,
        hosts=hosts,
        max_body_bytes=settings.server.max_body_bytes,
    )
    return app
