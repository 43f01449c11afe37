"""A multi-user deployment changes nothing over stdio MCP and the CLI: they have no caller
identity, so every capability and every metric (restricted ones too) is theirs."""

from pathlib import Path

import anyio
import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.transports.http.inbound_deployment import RESTRICTED, write_multi_user
from tests.transports.http.tokens import KeyPair
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION, connected, structured_of


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory, example_dir: Path) -> Path:
    """The multi-user deployment of the HTTP tests."""
    return write_multi_user(tmp_path_factory.mktemp("local"), example_dir, KeyPair("k1"))


@pytest.mark.anyio
async def test_stdio_mcp_lists_and_answers_every_metric(config: Path) -> None:
    with anyio.fail_after(60):
        async with connected(Wiring({"SUTURA_CONFIG_DIR": str(config)})) as client:
            instructions = client.instructions or ""
            catalog = structured_of(await client.call_tool("describe_catalog", {}))
            question = {**EXAMPLE_QUESTION, "metrics": ["return_rate"]}
            answered = structured_of(await client.call_tool("ask_metric", question))
    names = {m["name"] for m in catalog["metrics"]}
    assert set(RESTRICTED) <= names
    assert all(f"metric: {metric}" in instructions for metric in RESTRICTED)
    assert answered["outcome"] == "answer"


def test_the_cli_shows_and_answers_every_metric(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wiring = Wiring({"SUTURA_CONFIG_DIR": str(config)})
    assert run_cli(["catalog"], wiring) == 0
    listed = capsys.readouterr().out
    assert all(metric in listed for metric in RESTRICTED)
    argv = ["query", "return_rate", "--grain", "quarter", "--from", "2024-01-01"]
    code = run_cli([*argv, "--to", "2025-01-01"], wiring)
    assert code == 0, capsys.readouterr().err
