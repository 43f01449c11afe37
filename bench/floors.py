"""The floors: minimal servers on the same SDK and stack as sutura, answering the same rows.

Each is a script, started as its own process like sutura's servers, holding one read-only
DuckDB connection to the same file and running the same compiled statement: no catalog, no
compiler, no checks, no escaping, no provenance. What sutura costs beyond a floor is sutura's.

- :data:`HTTP_FLOOR`: what ``sutura serve`` is built on and nothing more: uvicorn (its loop,
  its HTTP parser, the same socket binding and switch interval as ``sutura serve``), one
  Litestar route, ``POST /v1/query``, that runs the statement on a worker thread of the same
  pool sutura's DuckDB source uses (as many threads as it runs statements at once), each on its
  own cursor, and returns the same JSON: the answer's bytes around its rows, taken from one of
  sutura's answers, with the rows as ``str()`` cells encoded by msgspec. No token, no question
  decoded, no audit, no metrics.
- :data:`MCP_FLOOR` (``stdio`` or ``http`` as its first argument): the MCP SDK's low-level
  ``Server`` with one tool, ``rows``, declared with an input schema only (as a minimal server
  would: no output schema for its client to check). Its arguments are the statement's
  parameters; it answers the rows as a text block (tab-separated) and as
  ``structured_content`` (``columns``, ``rows`` of ``str()`` cells). Over stdio, on the loop
  ``sutura mcp`` runs (uvloop where installed); over HTTP, the SDK's
  stateless streamable-HTTP manager with JSON responses under uvicorn, as ``/mcp`` is served.
"""

import datetime
import decimal
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from bench.announced import announced

_PARAMS: Final = r"""
import datetime, decimal


def typed(params):
    kinds = {"date": datetime.date.fromisoformat, "int": int, "decimal": decimal.Decimal}
    return [kinds.get(kind, str)(text) for kind, text in params]
"""
"""How a script reads a compiled statement's parameters (:func:`tagged_params`)."""


MCP_FLOOR: Final = (
    _PARAMS
    + r"""
import sys
import anyio, duckdb
import mcp_types as types
from mcp.server import Server

TRANSPORT, DATABASE, SQL = sys.argv[1], sys.argv[2], sys.argv[3]
CONNECTION = duckdb.connect(DATABASE, read_only=True)


def fetched(params):
    cursor = CONNECTION.cursor()
    try:
        cursor.execute(SQL, typed(params))
        columns = [d[0] for d in cursor.description]
        return columns, [[None if c is None else str(c) for c in row] for row in cursor.fetchall()]
    finally:
        cursor.close()


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="rows", input_schema={"type": "object"})])


async def call_tool(ctx, params):
    columns, rows = fetched(params.arguments["params"])
    text = "\n".join("\t".join("" if c is None else c for c in line) for line in [columns, *rows])
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content={"columns": columns, "rows": rows},
    )


server = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)

if TRANSPORT == "stdio":
    from mcp.server.stdio import stdio_server

    async def main():
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    import importlib.util

    anyio.run(main, backend_options={"use_uvloop": importlib.util.find_spec("uvloop") is not None})
else:
    import contextlib
    import uvicorn
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings

    manager = StreamableHTTPSessionManager(
        server, json_response=True, stateless=True,
        security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    async def app(scope, receive, send):
        if scope["type"] == "lifespan":
            async with manager.run():
                await receive()
                await send({"type": "lifespan.startup.complete"})
                await receive()
                await send({"type": "lifespan.shutdown.complete"})
            return
        await manager.handle_request(scope, receive, send)

    uvicorn.run(app, host="127.0.0.1", port=0, log_level="info", access_log=False)
"""
)


HTTP_FLOOR: Final = (
    _PARAMS
    + r"""
import gc, json, sys
import anyio, duckdb, msgspec, uvicorn
from litestar import Litestar, Response, post

from sutura.boundary.cpus import available_cpus
from sutura.boundary.sources.worker_threads import WorkerThreads
from sutura.transports.event_loop import loop_options
from sutura.transports.http.serve import bind
from sutura.transports.http.switching import prompt_switches

DATABASE, SQL, AROUND = sys.argv[1], sys.argv[2], sys.argv[4]
PARAMS = typed(json.loads(sys.argv[3]))
BEFORE, AFTER = (part.encode("utf-8") for part in json.loads(open(AROUND).read()))
CONNECTION = duckdb.connect(DATABASE, read_only=True)
THREADS = WorkerThreads("floor", available_cpus())


def rows():
    cursor = CONNECTION.cursor()
    try:
        cursor.execute(SQL, PARAMS)
        return cursor.fetchmany(10_001)
    finally:
        cursor.close()


@post("/v1/query", status_code=200)
async def query() -> Response[bytes]:
    fetched = await THREADS.run(rows)
    cells = [[None if c is None else str(c) for c in row] for row in fetched]
    return Response(BEFORE + msgspec.json.encode(cells) + AFTER, media_type="application/json")


app = Litestar([query], logging_config=None)
listener = bind("127.0.0.1", 0)
host, port = listener.getsockname()[:2]
config = uvicorn.Config(app, http="httptools", log_config=None, access_log=False,
                        lifespan="off", server_header=False)
gc.freeze()  # as sutura serve does once composed
print(f"floor serving on http://{host}:{port}", file=sys.stderr, flush=True)


async def serve():
    with prompt_switches():
        await uvicorn.Server(config).serve(sockets=[listener])

anyio.run(serve, backend_options=loop_options())
"""
)


def around_rows(answer: bytes) -> tuple[str, str]:
    """An answer's structured half without its rows: the text before and after them."""
    before, _, rest = answer.partition(b',"rows":')
    _, _, after = rest.partition(b',"provenance":')
    return (before + b',"rows":').decode("utf-8"), (b',"provenance":' + after).decode("utf-8")


@contextmanager
def http_query_floor(
    path: Path, database: Path, sql: str, params: Sequence[object], answer: bytes
) -> Iterator[tuple[tuple[str, int], subprocess.Popen[bytes]]]:
    """The HTTP floor on a free loopback port: its address and its process."""
    with tempfile.TemporaryDirectory() as directory:
        around = Path(directory) / "around.json"
        around.write_text(json.dumps(around_rows(answer)), encoding="utf-8")
        tagged = json.dumps(tagged_params(params))
        command = [sys.executable, str(path), str(database), sql, tagged]
        with announced([*command, str(around)]) as (address, process):
            yield address, process


def tagged_params(params: Sequence[object]) -> list[tuple[str, str]]:
    """A compiled statement's parameters as JSON-safe ``(kind, text)`` pairs."""
    tagged: list[tuple[str, str]] = []
    for param in params:
        match param:
            case datetime.date():
                tagged.append(("date", param.isoformat()))
            case bool() | str():
                tagged.append(("str", str(param)))
            case int():
                tagged.append(("int", str(param)))
            case decimal.Decimal():
                tagged.append(("decimal", str(param)))
            case _:
                raise TypeError(f"no tag for a parameter of type {type(param).__name__}")
    return tagged


@contextmanager
def script(text: str) -> Iterator[Path]:
    """``text`` written to a script file for the block."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "floor.py"
        path.write_text(text, encoding="utf-8")
        yield path


def stdio_floor_command(path: Path, database: Path, sql: str) -> list[str]:
    """The command that runs the MCP floor over stdio."""
    return [sys.executable, str(path), "stdio", str(database), sql]


@contextmanager
def http_floor(path: Path, database: Path, sql: str) -> Iterator[str]:
    """The MCP floor over streamable HTTP on a free loopback port; its ``/mcp`` URL."""
    with announced([sys.executable, str(path), "http", str(database), sql]) as (address, _):
        yield f"http://{address[0]}:{address[1]}/mcp"


def params_argument(params: Sequence[object]) -> dict[str, object]:
    """The floor tool's arguments for a statement's parameters."""
    return {"params": tagged_params(params)}
