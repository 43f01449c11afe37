"""The ASGI application: one function builds it from a started service and the settings.

:func:`build_app` is the only place the HTTP surface meets the settings. It reads each one
once (the prose setting, the authentication, the limits) and hands it to the handler that needs
it, so no handler defaults a setting. Whether the deployment may serve without a token is
decided by ``sutura serve`` before this is called (see :mod:`sutura.transports.http.auth`).
"""

import logging
from pathlib import Path
from typing import Any

from litestar import Litestar, Response, Router
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware

from sutura.boundary.service import Service
from sutura.core.settings import Settings, console_served
from sutura.core.tool.capability import Capability
from sutura.transports.http import routes
from sutura.transports.http.auth import Authentication, authentication_of
from sutura.transports.http.console.assets import asset_routes
from sutura.transports.http.console.routes import console_routes
from sutura.transports.http.errors import exception_handlers
from sutura.transports.http.gate import Gate, allowed_hosts_for
from sutura.transports.http.limits import Admission
from sutura.transports.http.openapi import CarriedSchema, StrictStructSchema, openapi_config
from sutura.transports.http.replies import failure_response
from sutura.transports.http.wire import FailureCode, failure_body

log = logging.getLogger("sutura.http")


async def _docs_response(response: Response[Any]) -> Response[Any]:
    """Close the docs router's own HTML 404 into the failure channel, and forbid the docs page
    every script, style and fetch (it needs none)."""
    if response.status_code == 404:
        return failure_response(failure_body(FailureCode.NOT_FOUND))
    response.headers["Content-Security-Policy"] = "default-src 'none'"
    return response


def _handlers(
    service: Service, settings: Settings, authentication: Authentication
) -> list[HTTPRouteHandler]:
    server = settings.server
    calls = routes.Calls(
        service,
        Admission(server.max_concurrent_queries),
        server.request_timeout_seconds,
        authentication,
    )
    capability_routes = [routes.route_of(capability, calls) for capability in Capability]
    inbound = settings.security.inbound
    discovery = [] if inbound is None else [routes.protected_resource_route(inbound)]
    base = [routes.health, routes.openapi_document, *discovery, *capability_routes]
    if not console_served(settings):
        return base
    return [*base, *asset_routes(), *console_routes(calls)]


def build_app(
    service: Service,
    settings: Settings,
    authentication: Authentication | None = None,
    *,
    bind_host: str | None = None,
) -> Litestar:
    """The HTTP surface over ``service``, bounded and guarded as ``settings`` say.

    ``authentication`` defaults to the one the settings ask for, with key-set files read
    relative to the working directory; ``sutura serve`` passes its own (relative to the
    settings directory). ``bind_host`` (``server.host`` unless given) decides which ``Host``
    headers are answered when ``server.allowed_hosts`` is not set (see
    :mod:`sutura.transports.http.gate`).
    """
    if authentication is None:
        authentication = authentication_of(settings, Path.cwd())
    host = settings.server.host if bind_host is None else bind_host
    allowed = allowed_hosts_for(host, settings.server.allowed_hosts)
    config = openapi_config()
    config.openapi_router = Router(
        "/docs", route_handlers=[], include_in_schema=False, after_request=_docs_response
    )
    return Litestar(
        route_handlers=_handlers(service, settings, authentication),
        exception_handlers=exception_handlers(),
        openapi_config=config,
        plugins=[CarriedSchema(), StrictStructSchema()],
        middleware=[DefineMiddleware(Gate, allowed=allowed)],
        request_max_body_size=settings.server.max_body_bytes,
        logging_config=None,
        debug=False,
    )
