"""The console under ``multi-user``: its helpers take the same inbound access tokens as
``/v1``, and a caller sees through it exactly what that caller gets from the API."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION

pytestmark = pytest.mark.anyio

ISSUER_KEY = KeyPair("k1")


@pytest.fixture(scope="module")
async def http(
    tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[httpx.AsyncClient]:
    """The multi-user example with the console on, started the way ``sutura serve`` starts."""
    config = write_multi_user(tmp_path_factory.mktemp("console-inbound"), example_dir, ISSUER_KEY)
    async with (
        assembled(config, SUTURA__SERVER__CONSOLE="true") as started,
        client(started.app) as http,
    ):
        yield http


def _bearer(**changes: Any) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(ISSUER_KEY, claims(**changes))}"}


async def test_the_helpers_refuse_a_token_the_api_refuses(http: httpx.AsyncClient) -> None:
    forged = {"Authorization": f"Bearer {mint(KeyPair('k1'), claims())}"}
    with anyio.fail_after(10):
        page = await http.get("/")
        agent = await http.post("/console/agent/ask_metric", json=EXAMPLE_QUESTION, headers=forged)
        compiled = await http.post("/console/compile", json=EXAMPLE_QUESTION, headers=forged)
        api = await http.post("/v1/query", json=EXAMPLE_QUESTION, headers=forged)
    assert page.status_code == 200
    assert agent.status_code == compiled.status_code == api.status_code == 401
    assert agent.content == compiled.content == api.content


@pytest.mark.parametrize(
    "scope",
    [
        "sutura:catalog.read sutura:metrics.ask sutura:metrics.compile",
        "sutura:catalog.read sutura:metrics.ask",
        "sutura:catalog.read",
    ],
    ids=["may-ask-and-compile", "may-ask-not-compile", "may-not-ask"],
)
async def test_a_caller_sees_through_the_console_what_the_api_gives_that_caller(
    http: httpx.AsyncClient, scope: str
) -> None:
    token = _bearer(scope=scope)
    with anyio.fail_after(30):
        shown = await http.post("/console/agent/ask_metric", json=EXAMPLE_QUESTION, headers=token)
        api = await http.post("/v1/query", json=EXAMPLE_QUESTION, headers=token)
        compiled = await http.post("/console/compile", json=EXAMPLE_QUESTION, headers=token)
        api_compiled = await http.post("/v1/compile", json=EXAMPLE_QUESTION, headers=token)
    view = shown.json()
    assert (view["http_status"], view["http_body"].encode()) == (api.status_code, api.content)
    assert (compiled.status_code, compiled.content) == (
        api_compiled.status_code,
        api_compiled.content,
    )
    if api.status_code == 200:
        assert view["mcp_channel"] == "result"
    else:
        assert api.json()["code"] == "insufficient_scope"
        assert view["mcp_channel"] == "error_result" and "sutura:metrics.ask" in view["text"]
    if "sutura:metrics.compile" in scope:
        assert compiled.status_code == 200 and compiled.json()["sql"]
    else:
        assert compiled.json()["code"] == "insufficient_scope"
        assert "sutura:metrics.compile" in compiled.json()["detail"]


async def test_the_compiler_refuses_a_hidden_metric_as_the_api_refuses_a_missing_one(
    http: httpx.AsyncClient,
) -> None:
    token = _bearer(scope="sutura:metrics.ask sutura:metrics.compile")  # no group: open metrics
    hidden = {**EXAMPLE_QUESTION, "metrics": ["return_rate"]}
    missing = {**EXAMPLE_QUESTION, "metrics": ["no_such_metric"]}
    with anyio.fail_after(30):
        compiled = await http.post("/console/compile", json=hidden, headers=token)
        api = await http.post("/v1/query", json=hidden, headers=token)
        absent = await http.post("/console/compile", json=missing, headers=token)
        allowed = await http.post(
            "/console/compile", json=hidden, headers=_bearer(groups=["finance-team"])
        )
    assert api.json()["reason"]["code"] == "metric_unknown"
    assert (compiled.status_code, compiled.content) == (api.status_code, api.content)
    assert compiled.content == absent.content.replace(b"no_such_metric", b"return_rate")
    assert allowed.status_code == 200 and "return_rate" in allowed.text
