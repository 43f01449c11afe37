"""``sutura mcp`` imports only what its first answer needs: never the HTTP server's stack.

The MCP SDK itself imports an HTTP client and server (its own transports), so those are not
ours to leave out; what sutura adds for ``serve`` (Litestar, the Prometheus client, JWT, the
HTTP transport) and what only other verbs use (their command modules, catalog drafting, shell
completion, batch rendering, the JSON schemas, the terminal's table widths) must not be loaded
by a stdio server, nor the raw SQL checker while ``run_sql`` is off (as here); nor any SQL
dialect but the one the deployment's sources speak (DuckDB here). Checked in a spawned process
that answers one question, then lists its ``sys.modules``.
"""

import json
import subprocess
import sys
from pathlib import Path

from tests.transports.mcp.spawned import INITIALIZE, INITIALIZED, server_environment

QUESTION = {
    "metrics": ["revenue"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
}
LISTS_ITS_MODULES = """
import json, sys
from sutura.root import main
code = main(["mcp"])
sys.stderr.write("\\nMODULES " + json.dumps(sorted(sys.modules)) + "\\n")
sys.exit(code)
"""
OTHER_COMMANDS = ("completion", "doctor", "init", "render", "schema", "serve", "sql")
NOT_FOR_STDIO = (
    "litestar",
    "prometheus_client",
    "jwt",
    "sutura.transports.http",
    "sutura.boundary.drafting",
    "shtab",
    *(f"sutura.transports.cli.cmd_{command}" for command in OTHER_COMMANDS),
    "sutura.transports.cli.formats",
    "sutura.transports.cli.question_args",
    "sutura.transports.batch",
    "sutura.core.json_schemas",
    "sutura.core.raw.check",
    "rich",
)
SQL_DIALECT_PACKAGES = ("sqlglot.dialects.", "sqlglot.generators.", "sqlglot.parsers.")
SHARED_BY_EVERY_DIALECT = {"dialect", "base"}


def _modules_after_one_answer(config: Path) -> tuple[list[str], list[dict[str, object]]]:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "ask_metric", "arguments": QUESTION},
    }
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in (INITIALIZE, INITIALIZED, call))
    done = subprocess.run(
        [sys.executable, "-c", LISTS_ITS_MODULES],
        input=lines,
        capture_output=True,
        env=server_environment(config),
        timeout=120,
        check=True,
    )
    last = done.stderr.decode("utf-8").rsplit("\nMODULES ", 1)[1]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    return json.loads(last), replies


def test_sutura_mcp_answers_without_importing_the_http_stack(example_dir: Path) -> None:
    modules, replies = _modules_after_one_answer(example_dir)
    answer = next(r for r in replies if r.get("id") == 1)
    assert answer["result"]["isError"] is False, answer  # type: ignore[index]
    assert "sutura.transports.mcp.stdio" in modules  # the check sees the server's own modules
    loaded = [
        m for m in modules for banned in NOT_FOR_STDIO if m == banned or m.startswith(banned + ".")
    ]
    assert loaded == []
    dialects = {
        m.split(".")[2] for m in modules if m.startswith(SQL_DIALECT_PACKAGES) and m.count(".") == 2
    }
    assert "duckdb" in dialects  # the check sees the compiler's own dialect
    assert dialects - SHARED_BY_EVERY_DIALECT == {"duckdb"}
