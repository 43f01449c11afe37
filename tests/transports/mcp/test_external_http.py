"""``/mcp`` on a real ``sutura serve`` driven by clients no one here wrote, over streamable
HTTP: the official TypeScript SDK client and the official MCP Inspector (CLI mode), with the
deployment's bearer token, as a hosted agent reaches it.

Like ``test_external.py``: a missing client fails in CI (``CI=true``) and skips elsewhere.
"""

import json
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.transports.http.deployments import QUESTION, TOKEN, write_deployment
from tests.transports.mcp.external.run_external import (
    external_client_available,
    inspector_available,
    run_external_client_http,
    run_inspector_http,
)
from tests.transports.mcp.spawned import SUTURA, server_environment
from tests.transports.mcp.test_external import _require

pytestmark = pytest.mark.slow

TIMEOUT = 90
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``sutura serve --port 0`` over one deployment; its ``/mcp`` URL."""
    config = write_deployment(tmp_path_factory.mktemp("external-http"))
    command = [str(SUTURA), "serve", "--host", "127.0.0.1", "--port", "0"]
    with subprocess.Popen(
        command, env=server_environment(config), stderr=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stderr is not None
            line = process.stderr.readline()  # the announcement, once bound (or a refusal)
            found = re.search(r"http://127\.0\.0\.1:[0-9]+", line)
            assert found is not None, line
            yield f"{found.group()}/mcp"
        finally:
            process.terminate()
            process.wait(timeout=15)


def test_the_typescript_sdk_client_over_http_lists_the_tools_and_gets_an_answer(
    endpoint: str,
) -> None:
    _require(external_client_available())
    doc = run_external_client_http(endpoint, BEARER, "ask_metric", QUESTION, TIMEOUT)
    assert doc["error"] is None
    assert str(doc["instructions"]).startswith("# sutura: certified answers about data")
    tools: Any = doc["tools"]
    assert [t["name"] for t in tools] == ["describe_catalog", "ask_metric", "list_values"]
    call: Any = doc["call"]
    assert call["isError"] is False
    assert call["structuredContent"]["outcome"] == "answer"
    assert call["structuredContent"]["columns"] == ["period", "label", "units"]


def test_the_typescript_sdk_client_over_http_without_the_token_cannot_connect(
    endpoint: str,
) -> None:
    _require(external_client_available())
    doc = run_external_client_http(endpoint, {}, None, {}, TIMEOUT)
    assert doc["tools"] == [] and doc["error"] is not None
    assert "401" in str(doc["error"])


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_the_inspector_over_http_lists_portable_tools_and_gets_an_answer(
    endpoint: str, era: str
) -> None:
    _require(inspector_available())
    era_args = ["--protocol-era", era]
    listed = run_inspector_http(
        endpoint, BEARER, [*era_args, "--method", "tools/list", "--strict"], TIMEOUT
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.result is not None
    call_args = ["--method", "tools/call", "--tool-name", "ask_metric"]
    call_args += ["--tool-args-json", json.dumps(QUESTION)]
    called = run_inspector_http(endpoint, BEARER, [*era_args, *call_args], TIMEOUT)
    assert called.returncode == 0, called.stderr
    assert called.result is not None
    structured: Any = called.result["structuredContent"]
    assert structured["outcome"] == "answer" and structured["rows"]
