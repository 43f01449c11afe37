"""``sutura mcp`` imports only what its first answer needs: never the HTTP server's stack; and
only what its handshake needs before answering it: not the service, the compiler or a driver.

The MCP SDK itself imports an HTTP client and server (its own transports), so those are not
ours to leave out; what sutura adds for ``serve`` (Litestar, the Prometheus client, JWT, the
HTTP transport) and what only other verbs use (their command modules, catalog drafting, shell
completion, batch rendering, the JSON schemas, the terminal's table widths) must not be loaded
by a stdio server, nor the raw SQL checker while ``run_sql`` is off (as here); nor any SQL
dialect but the one the deployment's sources speak (DuckDB here). Checked in a spawned process
that answers one question, then lists its ``sys.modules``; the same process shows its garbage
collector on again once the server was composed, with what composing built frozen out of it.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.transports.mcp.spawned import INITIALIZE, INITIALIZED, server_environment

QUESTION = {
    "metrics": ["revenue"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
}
LISTS_ITS_MODULES = """
import gc, json, sys
from sutura.root import main
code = main(["mcp"])
sys.stderr.write("\\nGC " + json.dumps([gc.isenabled(), gc.get_freeze_count()]))
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


class AfterOneAnswer(NamedTuple):
    """What the spawned server left: its modules, its replies, and its garbage collector's
    state (collecting or not, how many objects were frozen out of collections)."""

    modules: list[str]
    replies: list[dict[str, object]]
    collecting: bool
    frozen: int


@pytest.fixture(scope="module")
def after_one_answer(example_dir: Path) -> AfterOneAnswer:
    """One spawned ``sutura mcp`` that answered one question, shared by this module's tests."""
    return _after_one_answer(example_dir)


def _after_one_answer(config: Path) -> AfterOneAnswer:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "ask_metric", "arguments": QUESTION},
    }
    return _after(config, [INITIALIZE, INITIALIZED, call])


def _after(config: Path, messages: list[dict[str, object]]) -> AfterOneAnswer:
    """A spawned ``sutura mcp`` sent ``messages``, then the end of its input."""
    lines = b"".join(json.dumps(m).encode() + b"\n" for m in messages)
    done = subprocess.run(
        [sys.executable, "-c", LISTS_ITS_MODULES],
        input=lines,
        capture_output=True,
        env=server_environment(config),
        timeout=120,
        check=True,
    )
    collector, modules = done.stderr.decode("utf-8").rsplit("\nGC ", 1)[1].split("\nMODULES ")
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    collecting, frozen = json.loads(collector)
    return AfterOneAnswer(json.loads(modules), replies, collecting, frozen)


def test_sutura_mcp_answers_without_importing_the_http_stack(
    after_one_answer: AfterOneAnswer,
) -> None:
    modules, replies = after_one_answer.modules, after_one_answer.replies
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


def test_sutura_mcp_collects_garbage_once_composed_and_skips_what_composing_built(
    after_one_answer: AfterOneAnswer,
) -> None:
    assert after_one_answer.collecting
    assert after_one_answer.frozen > 10_000  # the SDK, the compiler and the catalog, at least


ANSWERING = ("sqlglot", "duckdb", "sutura.core.sql.compile", "sutura.boundary.service")


def test_the_handshake_is_answered_before_the_service_or_the_compiler_is_imported(
    example_dir: Path,
) -> None:
    """``initialize`` alone does not begin the start: what answering needs is never loaded."""
    after = _after(example_dir, [INITIALIZE, INITIALIZED])
    [reply] = after.replies
    assert reply["result"]["serverInfo"]["name"] == "sutura"  # type: ignore[index]
    assert "sutura.transports.mcp.stdio" in after.modules
    loaded = [m for m in after.modules for a in ANSWERING if m == a or m.startswith(a + ".")]
    assert loaded == []
