"""One prompt builder for both MCP transports: the ``initialize`` instructions of ``sutura
mcp`` (stdio) and of ``/mcp`` follow the caller's audiences and scopes alike, so a metric the
caller may not see, or a tool it may not call, is in neither — and one caller is told the same
prompt over both."""

from pathlib import Path

import anyio
import pytest
from mcp import Client

from sutura.core.tool.caller import Audiences, Caller
from sutura.core.tool.capability import Scope
from sutura.transports.mcp.server import mcp_server
from tests.transports.http.deployments import assembled
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import wiring
from tests.transports.mcp.remote import http_of, mcp_client

pytestmark = pytest.mark.anyio

ISSUER_KEY = KeyPair("k1")
NARROW = frozenset({Scope.CATALOG_READ, Scope.METRICS_ASK})
RESTRICTED = ("metric: return_rate", "means: return_rate")  # finance's metric, and its term
COMPILE_ON = "tools:\n  compile_question:\n    enabled: true\n"


def _config(tmp_path: Path, example_dir: Path) -> Path:
    """The multi-user example (``return_rate`` for ``finance`` only), ``compile_question``
    listed to agents."""
    config = write_multi_user(tmp_path / "config", example_dir, ISSUER_KEY)
    with (config / "base.yaml").open("a", encoding="utf-8") as settings:
        settings.write(COMPILE_ON)
    return config


def _without_data(prompt: str) -> str:
    """A prompt without where each metric's data is: ``sutura mcp`` tells its instructions
    before any source is opened, so only ``/mcp``'s prompt can state it (the same builder)."""
    return "\n".join(line for line in prompt.split("\n") if not line.startswith("data: from "))


async def _over_stdio(config: Path, scopes: frozenset[Scope], audiences: Audiences) -> str:
    """What ``sutura mcp``'s server tells a caller with ``scopes`` in ``audiences``."""

    def caller() -> Caller:
        return Caller(subject="agent-7", scopes=scopes, audiences=audiences, request_id="r")

    server = mcp_server(wiring(config).load(), new_caller=caller).unwrap().server
    async with Client(server, mode="legacy") as client:
        return client.instructions or ""


async def _over_http(config: Path, scopes: frozenset[Scope], groups: list[str]) -> str:
    """What ``/mcp`` tells the bearer of a token with ``scopes`` in ``groups``."""
    scope = " ".join(sorted(s.value for s in scopes))
    token = mint(ISSUER_KEY, claims(scope=scope, groups=groups))
    async with (
        assembled(config) as started,
        http_of(started.app, {"Authorization": f"Bearer {token}"}) as http,
        mcp_client(http) as client,
    ):
        return client.instructions or ""


async def test_a_hidden_metric_and_an_unpermitted_tool_are_in_neither_prompt(
    tmp_path: Path, example_dir: Path
) -> None:
    config = _config(tmp_path, example_dir)
    with anyio.fail_after(60):
        stdio = await _over_stdio(config, NARROW, frozenset())
        http = await _over_http(config, NARROW, [])
    for told in (stdio, http):
        assert told.startswith("# sutura: certified answers about data")
        assert "compile_question" not in told
        assert not [hidden for hidden in RESTRICTED if hidden in told]
    assert _without_data(stdio) == _without_data(http)


async def test_what_a_caller_may_see_and_call_is_in_both_prompts(
    tmp_path: Path, example_dir: Path
) -> None:
    config = _config(tmp_path, example_dir)
    every = frozenset(Scope)
    with anyio.fail_after(60):
        stdio = await _over_stdio(config, every, frozenset({"finance"}))
        http = await _over_http(config, every, ["finance-team"])
    for told in (stdio, http):
        assert "- `compile_question`:" in told
        assert all(shown in told for shown in RESTRICTED)
    assert _without_data(stdio) == _without_data(http)
