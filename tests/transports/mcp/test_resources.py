"""The physical-schema listing: off by default; when the operator lists it, one MCP resource,
read through the SDK's own client, with its own notice and every name and prose line escaped —
and never in the prompt, ``describe_catalog`` or HTTP."""

from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from sutura.core.nouns.notices import OMITTED_NOTICE, PHYSICAL_NOTICE, QUOTED_NOTICE
from sutura.core.nouns.physical import PHYSICAL_SCHEMA_URI
from sutura.core.text.escape import escape_text, is_escaped
from sutura.transports.mcp.resources import UNKNOWN_RESOURCE
from tests.transports.http.deployments import assembled, client
from tests.transports.mcp.configs import carried_prose, hostile_config, settings_document
from tests.transports.mcp.inprocess import connected, structured_of, text_of, wiring

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]
PHYSICAL_NAMES = ("customer_segment", "signed_up_on", "was_returned", "customer_name")
"""Columns of the example that no metric, dimension or prose names: only the listing does."""


@pytest.fixture(scope="module")
def listed(example_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = settings_document(tmp_path_factory.mktemp("listed"), example_dir, prose=None)
    with (config / "base.yaml").open("a", encoding="utf-8") as handle:
        handle.write("prompt:\n  physical_schema: listed\n")
    return config


@pytest.fixture(scope="module")
def hidden(example_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return settings_document(tmp_path_factory.mktemp("hidden"), example_dir, prose=None)


async def _listing(config: Path, mode: str = "legacy") -> str:
    with anyio.fail_after(30):
        async with connected(wiring(config), mode) as client:
            listed = await client.list_resources()
            assert [str(r.uri) for r in listed.resources] == [PHYSICAL_SCHEMA_URI]
            assert listed.resources[0].mime_type == "text/plain"
            read = await client.read_resource(PHYSICAL_SCHEMA_URI)
    (contents,) = read.contents
    assert str(contents.uri) == PHYSICAL_SCHEMA_URI
    text = getattr(contents, "text", None)
    assert isinstance(text, str)
    return text


@pytest.mark.parametrize("mode", MODES)
async def test_a_listed_physical_schema_is_one_resource_with_its_own_notice(
    listed: Path, mode: str
) -> None:
    lines = (await _listing(listed, mode)).split("\n")
    assert lines[:2] == [PHYSICAL_NOTICE, QUOTED_NOTICE]
    assert "model: customers" in lines and "table: customers" in lines
    assert "column: customer_segment (VARCHAR)" in lines
    assert "> consumer or business." in lines
    assert lines[-1].startswith("definitions: example-1 (digest ")


async def test_no_resource_is_offered_unless_the_operator_lists_the_schema(hidden: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(hidden)) as client:
            with pytest.raises(MCPError):
                await client.list_resources()
            with pytest.raises(MCPError):
                await client.read_resource(PHYSICAL_SCHEMA_URI)


async def test_an_unknown_resource_is_invalid_params_naming_no_value(listed: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(listed)) as client:
            with pytest.raises(MCPError) as raised:
                await client.read_resource("sutura://secrets")
    assert raised.value.error.code == -32602
    assert raised.value.error.message == UNKNOWN_RESOURCE


async def test_the_listing_never_reaches_the_prompt_the_catalog_or_http(listed: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(listed)) as mcp:
            instructions = mcp.instructions or ""
            catalog = await mcp.call_tool("describe_catalog", {})
    carried = [instructions, text_of(catalog), str(structured_of(catalog))]
    async with assembled(listed) as started, client(started.app) as http:
        with anyio.fail_after(30):
            served = [await http.get("/v1/catalog"), await http.get("/openapi.json")]
    assert [response.status_code for response in served] == [200, 200]
    carried += [response.text for response in served]
    assert "physical" not in instructions.lower()
    assert not [
        (name, i) for i, text in enumerate(carried) for name in PHYSICAL_NAMES if name in text
    ]


async def test_under_omitted_prose_the_listing_keeps_names_and_drops_descriptions(
    example_dir: Path, tmp_path: Path
) -> None:
    config = settings_document(tmp_path, example_dir, prose="omitted")
    with (config / "base.yaml").open("a", encoding="utf-8") as handle:
        handle.write("  physical_schema: listed\n")
    lines = (await _listing(config)).split("\n")
    assert lines[:2] == [PHYSICAL_NOTICE, OMITTED_NOTICE]
    assert "column: customer_segment (VARCHAR)" in lines
    assert not [line for line in lines if line.startswith(">")]


async def test_the_prose_corpus_in_model_descriptions_is_quoted_line_by_line(
    tmp_path: Path,
) -> None:
    text = await _listing(hostile_config(tmp_path, physical_schema=True))
    lines = text.split("\n")
    quoted = [f"> {escape_text(line)}" for line in carried_prose().split("\n")]
    assert [line for line in lines if line.startswith(">")] == quoted
    assert lines.count(PHYSICAL_NOTICE) == 1 and text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]
