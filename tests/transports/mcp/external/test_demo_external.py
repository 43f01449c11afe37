"""The external clients installed here talk to a throwaway Python server over real stdio.

This checks the harness itself (install, Node, client.mjs, the Inspector CLI), so a failure
of sutura's own external-client tests can be told apart from a broken harness.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.transports.mcp.external.run_external import (
    external_client_available,
    inspector_available,
    run_external_client,
    run_inspector,
)

pytestmark = pytest.mark.slow

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "demo_server.py")]
NESTED = {"target": {"schema": "s", "table": "t"}, "columns": ["a", "b"], "limit": 3}
EXPECTED = {"qualified": "s.t", "columns": ["a", "b"], "limit": 3, "echo": NESTED}


def _skip_unless(reason: str | None) -> None:
    if reason is not None:
        pytest.skip(reason)


def test_sdk_client_lists_and_calls_with_nested_arguments() -> None:
    _skip_unless(external_client_available())
    doc = run_external_client(SERVER, "describe", dict(NESTED), env={}, timeout=60)
    assert doc["error"] is None
    assert doc["instructions"] == (
        "Demo server: call 'describe' with a target {schema, table} and optional columns."
    )
    tools = doc["tools"]
    assert isinstance(tools, list)
    assert [t["name"] for t in tools] == ["describe"]
    assert "outputSchema" in tools[0]
    assert doc["call"] == {
        "content": [{"type": "text", "text": "s.t\ta,b\t3"}],
        "structuredContent": EXPECTED,
        "isError": False,
    }


def test_sdk_client_rejects_output_that_breaks_the_output_schema() -> None:
    _skip_unless(external_client_available())
    doc = run_external_client(
        SERVER, "describe", {"target": {"table": "t"}}, env={"DEMO_BREAK_OUTPUT": "1"}, timeout=60
    )
    assert doc["call"] is None
    error = doc["error"]
    assert isinstance(error, dict)
    assert "output schema" in str(error["message"])


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_cli_sees_instructions_and_calls_with_nested_arguments(era: str) -> None:
    _skip_unless(inspector_available())
    era_args = ["--protocol-era", era]
    init = run_inspector(SERVER, [*era_args, "--method", "initialize"], env={}, timeout=60)
    assert init.returncode == 0, init.stderr
    assert init.result is not None
    assert init.result["protocolVersion"] == ("2025-11-25" if era == "legacy" else "2026-07-28")
    assert str(init.result["instructions"]).startswith("Demo server:")

    call_args = ["--method", "tools/call", "--tool-name", "describe"]
    call_args += ["--tool-args-json", json.dumps(NESTED)]
    call = run_inspector(SERVER, [*era_args, *call_args], env={}, timeout=60)
    assert call.returncode == 0, call.stderr
    assert call.result is not None
    assert call.result["structuredContent"] == EXPECTED
    assert call.result["content"] == [{"type": "text", "text": "s.t\ta,b\t3"}]
