"""``sutura mcp``: serve the capabilities to an agent over stdio (MCP).

The MCP SDK is imported only when this command runs, so every other command starts without it.
"""

import argparse

import anyio
from returns.pipeline import is_successful

from sutura.boundary.composing import composing
from sutura.transports.cli.output import EXIT_OK, report, unwrap_or_report
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring
from sutura.transports.event_loop import loop_options


def register(verbs: Verbs) -> None:
    """Add ``mcp``."""
    mcp = verbs.add(
        "mcp",
        "serve describe_catalog and ask_metric to an agent over stdio (MCP)",
        "Speaks MCP on stdin/stdout until the client closes stdin. Nothing but JSON-RPC is "
        "written to stdout; problems and causes of failures go to stderr. Register it with an "
        "agent host by its absolute path (docs/mcp.md).",
        "claude mcp add --transport stdio --env SUTURA_CONFIG_DIR=/opt/sutura/example "
        "sutura -- /opt/sutura/.venv/bin/sutura mcp",
    )
    mcp.set_defaults(handler=run_mcp, serves=True)


def run_mcp(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura mcp``: load settings and catalog (or refuse, naming every reason), then serve."""
    with composing():  # no collection while the server is composed (boundary/composing.py)
        from sutura.boundary.logs import configure_server_log
        from sutura.transports.mcp.server import mcp_server
        from sutura.transports.mcp.stdio import serve_stdio

        loaded = wiring.load()
        if is_successful(loaded):
            configure_server_log(json_lines=loaded.unwrap().loaded.settings.logging.json)
        # Admission on stdio is the in-flight cap (transports/mcp/in_flight.py).
        composed = unwrap_or_report(mcp_server(loaded))
    if isinstance(composed, int):
        return composed
    longest = composed.longest_call
    anyio.run(
        lambda: serve_stdio(composed.server, longest_call=longest), backend_options=loop_options()
    )
    if composed.start_errors:
        return report(composed.start_errors)
    return EXIT_OK
