"""The composed MCP server, in-process through the SDK's own client, under settings documents.

Every server here is built by ``mcp_server`` — the function ``sutura mcp`` calls — from a config
directory whose ``base.yaml`` an operator could have written, so the prose setting is read
where the binary reads it.
"""

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from mcp.shared.exceptions import MCPError

from sutura.boundary import service as service_module
from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.nouns.answer import Answer
from sutura.core.nouns.notices import OMITTED_NOTICE, QUOTED_NOTICE
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.tool.carriage import UNKNOWN_TOOL
from sutura.core.tool.codec import decode_outcome, encode, halves_of
from sutura.core.tool.reply import FAILURE_SENTENCE
from sutura.transports.mcp.server import mcp_server
from tests.extents import extents_in
from tests.refusals import expect_refusal
from tests.transports.mcp.configs import settings_document
from tests.transports.mcp.inprocess import (
    EXAMPLE_QUESTION,
    connected,
    structured_of,
    text_of,
    wiring,
)

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]
REVENUE_PROSE = "> Revenue: everything charged for each order that was **not cancelled**, in"


@pytest.fixture(scope="module")
def quoted(example_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return settings_document(tmp_path_factory.mktemp("quoted"), example_dir, prose=None)


@pytest.fixture(scope="module")
def omitted(example_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return settings_document(tmp_path_factory.mktemp("omitted"), example_dir, prose="omitted")


def _descriptions(body: Mapping[str, Any]) -> list[object]:
    found = [m.get("description") for m in body["metrics"]]
    return found + [d.get("description") for m in body["metrics"] for d in m["dimensions"]]


@pytest.mark.parametrize("mode", MODES)
async def test_the_initialize_instructions_are_the_agent_prompt_of_the_loaded_settings(
    quoted: Path, mode: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:
            assert client.instructions == wiring(quoted).load().unwrap().prompt()
            assert REVENUE_PROSE in (client.instructions or "")


async def test_the_prompt_carries_no_prose_when_the_settings_document_omits_it(
    omitted: Path,
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(omitted)) as client:
            instructions = client.instructions or ""
    assert "Revenue: everything charged" not in instructions
    assert OMITTED_NOTICE in instructions


@pytest.mark.parametrize("mode", MODES)
async def test_a_catalog_read_sent_with_the_first_answer_states_every_metrics_data_lines(
    quoted: Path, mode: str
) -> None:
    """Once started, the service asks its sources where each metric's data is
    (boundary/extents.py) beside its first calls: a describe_catalog sent alongside the first
    ask_metric, while the service is still starting, waits for it and states every metric's
    data lines, and the question is answered."""
    loaded = wiring(quoted).load().unwrap()
    results: dict[str, Any] = {}
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:

            async def call(name: str, arguments: dict[str, Any]) -> None:
                results[name] = await client.call_tool(name, arguments)

            async with anyio.create_task_group() as group:
                group.start_soon(call, "ask_metric", EXAMPLE_QUESTION)
                group.start_soon(call, "describe_catalog", {})
    assert not results["ask_metric"].is_error
    body = structured_of(results["describe_catalog"])
    assert extents_in(body).keys() == {m.name for m in loaded.pinned.catalog.metrics}


@pytest.mark.parametrize("mode", MODES)
async def test_describe_catalog_quotes_prose_on_both_halves_by_default(
    quoted: Path, mode: str
) -> None:
    loaded = wiring(quoted).load().unwrap()
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:
            result = await client.call_tool("describe_catalog", {})
    text, body = text_of(result), structured_of(result)
    # Where each metric's data is comes from the data: the rest from the catalog alone.
    extents = extents_in(body)
    assert extents.keys() == {m.name for m in loaded.pinned.catalog.metrics}
    view = CatalogView.of(loaded.pinned, CatalogProse.QUOTED, extents=extents)
    assert text == view.text().unwrap() and text.split("\n")[0] == QUOTED_NOTICE
    assert REVENUE_PROSE in text.split("\n")
    assert body == msgspec.json.decode(encode(view.body).unwrap())
    assert body["catalog_prose"] == "quoted" and all(_descriptions(body))
    assert not result.is_error


@pytest.mark.parametrize("mode", MODES)
async def test_describe_catalog_omits_prose_from_both_halves_when_the_settings_say_so(
    omitted: Path, mode: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(omitted), mode) as client:
            result = await client.call_tool("describe_catalog", {})
    text, body = text_of(result), structured_of(result)
    assert text.split("\n")[0] == OMITTED_NOTICE
    assert not [line for line in text.split("\n") if line.startswith("> ")]
    assert body["catalog_prose"] == "omitted"
    assert _descriptions(body) == [None] * len(_descriptions(body))
    assert "description" not in msgspec.json.encode(body).decode()


async def test_an_environment_variable_over_the_settings_document_decides_the_prose(
    quoted: Path,
) -> None:
    layered = wiring(quoted, SUTURA__PROMPT__CATALOG_PROSE="omitted")
    with anyio.fail_after(30):
        async with connected(layered) as client:
            result = await client.call_tool("describe_catalog", {})
    assert text_of(result).split("\n")[0] == OMITTED_NOTICE
    assert structured_of(result)["catalog_prose"] == "omitted"


@pytest.mark.parametrize("mode", MODES)
async def test_an_answer_is_a_normal_result_whose_halves_come_from_one_value(
    quoted: Path, mode: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:
            result = await client.call_tool("ask_metric", EXAMPLE_QUESTION)
    body = structured_of(result)
    answer = decode_outcome(msgspec.json.encode(body)).unwrap()
    assert isinstance(answer, Answer) and body["outcome"] == "answer"
    assert not result.is_error
    assert text_of(result) == halves_of(answer).text
    assert answer.columns == ["period", "region", "revenue"] and len(answer.rows) == 16


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"metrics": ["no_such_metric"]}, RefusalCode.METRIC_UNKNOWN),
        (
            {"grain": "day", "range": {"start": "2000-01-01", "end": "2025-01-01"}},
            RefusalCode.TIME_RANGE_TOO_LONG,
        ),
        (
            {
                "dimensions": ["region"],
                "filters": [{"op": "eq", "dimension": "region", "value": "x"}],
            },
            RefusalCode.DIMENSION_VALUE_NOT_ALLOWED,
        ),
    ],
)
async def test_a_refusal_is_a_normal_result_carrying_its_outcome(
    quoted: Path, change: dict[str, Any], code: RefusalCode
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted)) as client:
            result = await client.call_tool("ask_metric", {**EXAMPLE_QUESTION, **change})
    body = structured_of(result)
    assert body["outcome"] == "refusal" and not result.is_error
    refused = decode_outcome(msgspec.json.encode(body)).unwrap()
    reason = expect_refusal(refused, code)
    assert text_of(result) == halves_of(refused).text
    assert text_of(result).startswith(f"refused ({reason.code.value}): ")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({**EXAMPLE_QUESTION, "grain": "SECRET-fortnight"}, "$.grain"),
        ({**EXAMPLE_QUESTION, "metrics": "SECRET"}, "$.metrics"),
        ({**EXAMPLE_QUESTION, "sql": "SECRET"}, "$.sql"),
        ({**EXAMPLE_QUESTION, "SECRET; DROP TABLE orders": 1}, "$"),
        ({"grain": "quarter", "range": {}}, "$.metrics"),
        ({**EXAMPLE_QUESTION, "range": {"start": "2025-01-01", "end": "2024-01-01"}}, "$.range"),
        ({**EXAMPLE_QUESTION, "range": {"start": "SECRET"}}, "$.range.start"),
    ],
)
async def test_malformed_arguments_are_invalid_params_naming_the_field_not_the_value(
    quoted: Path, mode: str, arguments: dict[str, Any], field: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("ask_metric", arguments)
    assert raised.value.code == -32602
    assert raised.value.message.startswith(f"malformed question: {field}: ")
    assert "SECRET" not in raised.value.message and "2025-01-01" not in raised.value.message


async def test_describe_catalog_takes_no_arguments(quoted: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted)) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("describe_catalog", {"SECRET": "x"})
    assert raised.value.code == -32602 and "SECRET" not in raised.value.message


async def test_an_unknown_tool_is_invalid_params_that_does_not_echo_its_name(quoted: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted), "auto") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("SECRET_tool", {})
    assert raised.value.code == -32602 and "SECRET" not in raised.value.message


async def test_an_agent_is_not_shown_compile_question_unless_the_operator_lists_it(
    quoted: Path,
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(quoted), "auto") as client:
            listed = [tool.name for tool in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as raised:
                await client.call_tool("compile_question", EXAMPLE_QUESTION)
            told = client.instructions or ""
        on = wiring(quoted, SUTURA__TOOLS__COMPILE_QUESTION__ENABLED="true")
        async with connected(on, "auto") as client:
            listed_on = [tool.name for tool in (await client.list_tools()).tools]
            shown = await client.call_tool("compile_question", EXAMPLE_QUESTION)
            told_on = client.instructions or ""
    assert listed == ["describe_catalog", "ask_metric", "list_values"]
    assert (raised.value.code, raised.value.message) == (-32602, UNKNOWN_TOOL)
    assert "compile_question" not in told and "SELECT" not in told
    assert listed_on == ["describe_catalog", "ask_metric", "compile_question", "list_values"]
    assert "- `compile_question`:" in told_on
    assert not shown.is_error and structured_of(shown)["sql"].startswith("SELECT")
    assert text_of(shown).startswith("-- dialect: duckdb\nSELECT")


@pytest.mark.parametrize("mode", MODES)
async def test_a_failure_is_an_error_result_with_a_fixed_sentence_and_its_cause_on_the_log(
    quoted: Path, mode: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def explode(*_: object, **__: object) -> object:
        raise RuntimeError("SECRET cause: the disk caught fire")

    caplog.set_level(logging.ERROR, logger="sutura")
    with anyio.fail_after(30):
        async with connected(wiring(quoted), mode) as client:
            await client.call_tool("describe_catalog", {})  # the service has started
            monkeypatch.setattr(service_module, "run_certified", explode)
            result = await client.call_tool("ask_metric", EXAMPLE_QUESTION)
    assert result.is_error and text_of(result) == FAILURE_SENTENCE
    assert result.structured_content is None
    assert "SECRET" not in FAILURE_SENTENCE
    assert any("the disk caught fire" in str(r.exc_info) for r in caplog.records)


def test_a_settings_problem_is_reported_before_anything_is_served(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("prompt:\n  catalog_prose: summarised\n", "utf-8")
    problems = mcp_server(wiring(tmp_path).load()).failure()
    assert any("prompt.catalog_prose" in problem for problem in problems)
