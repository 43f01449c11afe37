"""``sutura serve``: the HTTP JSON API under uvicorn."""

import argparse
import sys

import anyio
from returns.result import Success

from sutura.transports.cli.output import EXIT_OK, report
from sutura.transports.cli.wiring import Wiring


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``serve`` to ``sub``."""
    serve = sub.add_parser(
        "serve",
        help="serve the HTTP JSON API (catalog, query, OpenAPI at /openapi.json, docs at /docs)",
    )
    serve.add_argument("--host", help="listen address (default: server.host)")
    serve.add_argument(
        "--port", type=int, help="listen port (default: server.port; 0 picks a free port)"
    )
    serve.set_defaults(handler=run_serve, serves=True)


def _announce(url: str) -> None:
    print(f"sutura: serving {url} (docs at {url}/docs)", file=sys.stderr, flush=True)


def run_serve(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura serve``: start (or refuse, naming every reason), then serve until a signal."""
    from sutura.transports.http.serve import serve, start_app

    if args.port is not None and not 0 <= args.port <= 65535:
        return report(["serve: --port must be between 0 and 65535"])

    async def main() -> list[str]:
        started = await start_app(wiring, host=args.host, port=args.port)
        if not isinstance(started, Success):
            return list(started.failure())
        return await serve(started.unwrap(), _announce)

    problems: list[str] = anyio.run(main)
    return report(problems) if problems else EXIT_OK
