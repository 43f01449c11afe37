"""``sutura serve``: the HTTP JSON API under uvicorn."""

import argparse
import sys
from typing import TYPE_CHECKING

import anyio

from sutura.boundary.composing import composing
from sutura.transports.cli.output import EXIT_OK, report, unwrap_or_report
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

if TYPE_CHECKING:  # the server's modules are imported when it starts
    from sutura.boundary.admission import Shedding
    from sutura.boundary.loading import Loaded
    from sutura.boundary.service import Service
    from sutura.transports.http.mcp_route import McpOf
    from sutura.transports.mcp.remote import RemoteMcp


def register(verbs: Verbs) -> None:
    """Add ``serve``."""
    serve = verbs.add(
        "serve",
        "serve the HTTP JSON API (catalog, query, OpenAPI at /openapi.json, docs at /docs)",
        "Opens the service (sources, models, anchors) and serves GET /v1/catalog, POST "
        "/v1/query and, when enabled, POST /v1/sql/run until SIGINT or SIGTERM (docs/http.md); "
        "with server.console (development's default), the web console at / (docs/console.md).",
        "SUTURA_CONFIG_DIR=example sutura serve --port 8765",
    )
    serve.add_argument("--host", help="listen address (default: server.host)")
    serve.add_argument(
        "--port", type=int, help="listen port (default: server.port; 0 picks a free port)"
    )
    serve.set_defaults(handler=run_serve, serves=True)


def _announce(url: str) -> None:
    print(f"sutura: serving {url} (docs at {url}/docs)", file=sys.stderr, flush=True)


def mcp_of(loaded: "Loaded") -> "McpOf":
    """``/mcp`` over the service ``sutura serve`` opens: the MCP transport's endpoint, handed
    to the HTTP app (which imports no MCP code) by this command, which starts both."""
    from sutura.transports.mcp.remote import remote_mcp

    def mcp(service: "Service", admission: "Shedding") -> "RemoteMcp":
        return remote_mcp(loaded, service, admission)

    return mcp


def run_serve(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura serve``: start (or refuse, naming every reason), then serve until a signal."""
    from sutura.boundary.logs import configure_server_log
    from sutura.transports.event_loop import loop_options
    from sutura.transports.http.serve import serve

    if args.port is not None and not 0 <= args.port <= 65535:
        return report(["serve: --port must be between 0 and 65535"])
    # No collection while the server is composed; frozen once it is bound (boundary/composing.py).
    with composing() as composed:
        loaded = unwrap_or_report(wiring.load())
        if isinstance(loaded, int):
            return loaded
        configure_server_log(json_lines=loaded.loaded.settings.logging.json)

        def announce(url: str) -> None:
            composed.done()
            _announce(url)

        problems: list[str] = anyio.run(
            lambda: serve(loaded, announce, mcp=mcp_of(loaded), host=args.host, port=args.port),
            backend_options=loop_options(),
        )
    return report(problems) if problems else EXIT_OK
