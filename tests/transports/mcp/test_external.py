"""``sutura mcp`` driven by clients no one here wrote: the official TypeScript SDK client and
the official MCP Inspector (CLI mode), over real stdio against the installed binary.

Both clients check ``structuredContent`` against each tool's ``outputSchema``. They are
installed by ``npm ci --prefix tests/transports/mcp/external`` (see the README there). In CI
(``CI=true``) a missing client fails these tests; elsewhere it skips them, saying why.
"""

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.transports.mcp.external.run_external import (
    INSTALL_COMMAND,
    external_client_available,
    inspector_available,
    run_external_client,
    run_inspector,
)
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION
from tests.transports.mcp.spawned import SUTURA

pytestmark = pytest.mark.slow

SERVER = [str(SUTURA), "mcp"]
TIMEOUT = 90


def _require(reason: str | None) -> None:
    """Skip locally when the client is missing; fail in CI, where it is mandatory."""
    if reason is None:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"external MCP client required in CI: {reason} ({INSTALL_COMMAND})")
    pytest.skip(f"external MCP client not installed: {reason}")


def _env(config: Path) -> dict[str, str]:
    return {"SUTURA_CONFIG_DIR": str(config)}


def test_the_typescript_sdk_client_lists_the_tools_and_gets_an_answer(example_dir: Path) -> None:
    _require(external_client_available())
    doc = run_external_client(SERVER, "ask_metric", EXAMPLE_QUESTION, _env(example_dir), TIMEOUT)
    assert doc["error"] is None
    assert str(doc["instructions"]).startswith("# sutura: certified answers about data")
    tools: Any = doc["tools"]
    assert [t["name"] for t in tools] == ["describe_catalog", "ask_metric", "list_values"]
    assert all("outputSchema" in t and t["annotations"]["readOnlyHint"] for t in tools)
    call: Any = doc["call"]
    assert call["isError"] is False
    assert call["structuredContent"]["outcome"] == "answer"
    assert call["structuredContent"]["columns"] == ["period", "region", "revenue"]
    (block,) = call["content"]
    assert block["type"] == "text" and block["text"].startswith("period\tregion\trevenue\n")


def test_the_typescript_sdk_client_accepts_a_refusal_as_a_result(example_dir: Path) -> None:
    _require(external_client_available())
    question = {**EXAMPLE_QUESTION, "metrics": ["no_such_metric"]}
    doc = run_external_client(SERVER, "ask_metric", question, _env(example_dir), TIMEOUT)
    call: Any = doc["call"]
    assert doc["error"] is None and call["isError"] is False
    assert call["structuredContent"]["reason"]["code"] == "metric_unknown"


def test_the_typescript_sdk_client_sees_malformed_arguments_as_invalid_params(
    example_dir: Path,
) -> None:
    _require(external_client_available())
    question = {**EXAMPLE_QUESTION, "grain": "SECRET"}
    doc = run_external_client(SERVER, "ask_metric", question, _env(example_dir), TIMEOUT)
    error: Any = doc["error"]
    assert doc["call"] is None and error["code"] == -32602
    assert "$.grain" in error["message"] and "SECRET" not in error["message"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_lists_portable_tools_and_gets_an_answer(example_dir: Path, era: str) -> None:
    _require(inspector_available())
    era_args = ["--protocol-era", era]
    listed = run_inspector(
        SERVER, [*era_args, "--method", "tools/list", "--strict"], _env(example_dir), TIMEOUT
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.result is not None
    call_args = ["--method", "tools/call", "--tool-name", "ask_metric"]
    call_args += ["--tool-args-json", json.dumps(EXAMPLE_QUESTION)]
    called = run_inspector(SERVER, [*era_args, *call_args], _env(example_dir), TIMEOUT)
    assert called.returncode == 0, called.stderr
    assert called.result is not None
    structured: Any = called.result["structuredContent"]
    assert structured["outcome"] == "answer" and len(structured["rows"]) == 16
