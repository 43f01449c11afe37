"""The injection corpus, walked end to end: hostile cells in a table, hostile prose in a catalog.

Every ``untrusted.CELLS`` value a data system can hold is a label in one DuckDB table, and
``ask_metric`` groups by it; every ``untrusted.PROSE`` value is a line of the metric's
description. The agent's text half must hold P1-P5 (``docs/untrusted-content.md``), decoded
back with the shipped decoder, and the structured half must carry every value exactly — once
in-process and once over a real stdio pipe, where it crosses JSON.
"""

import io
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest
from mcp import Client, StdioServerParameters

from sutura.core.nouns.answer import Answer
from sutura.core.nouns.notices import QUOTED_NOTICE
from sutura.core.text.decode import decode_answer
from sutura.core.text.escape import escape_text, is_escaped
from sutura.core.tool.codec import decode_outcome
from tests.transports.mcp.configs import (
    HOSTILE_QUESTION,
    carried_cells,
    carried_prose,
    hostile_config,
)
from tests.transports.mcp.inprocess import connected, structured_of, text_of, wiring
from tests.transports.mcp.spawned import SUTURA, server_environment

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_config(tmp_path_factory.mktemp("hostile"))


def assert_answer_text_holds_p1_to_p4(answer: Answer, text: str) -> None:
    """P1 exact round trip, P2 line structure, P3 one verifying trailer, P4 nothing raw."""
    lines, count = text.split("\n"), len(answer.rows)
    assert decode_answer(text).unwrap() == answer  # P1
    assert text.splitlines() == lines  # P2, under every splitter
    assert io.StringIO(text, newline=None).read().split("\n") == lines
    assert all(line.count("\t") == len(answer.columns) - 1 for line in lines[: 1 + count])
    marks = [i for i, line in enumerate(lines) if line.startswith("\\.")]  # P3
    assert marks == [1 + count] and lines[1 + count] == f"\\. rows: {count}"
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]  # P4
    text.encode("utf-8")


def _assert_cells_arrived_exactly(answer: Answer) -> None:
    cells = carried_cells()
    assert answer.columns == ["period", "label", "units"]
    expected = {cell: str(i + 1) for i, cell in enumerate(cells)}
    assert {row[1]: row[2] for row in answer.rows} == expected
    assert len(answer.rows) == len(cells)


def _answer_of(result_body: Any) -> Answer:
    answer = decode_outcome(msgspec.json.encode(result_body)).unwrap()
    assert isinstance(answer, Answer)
    return answer


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_every_corpus_cell_reaches_the_agent_holding_p1_to_p4_and_exact(
    hostile: Path, mode: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(hostile), mode) as client:
            result = await client.call_tool("ask_metric", HOSTILE_QUESTION)
    answer = _answer_of(structured_of(result))
    _assert_cells_arrived_exactly(answer)
    assert_answer_text_holds_p1_to_p4(answer, text_of(result))


def _quoted(text: str) -> list[str]:
    return [f"> {escape_text(line)}" for line in text.split("\n")]


async def test_every_corpus_prose_line_is_quoted_after_one_notice_and_exact_structured(
    hostile: Path,
) -> None:
    metric = wiring(hostile).load().unwrap().pinned.catalog.metrics[0]
    with anyio.fail_after(30):
        async with connected(wiring(hostile)) as client:
            result = await client.call_tool("describe_catalog", {})
    text, body = text_of(result), structured_of(result)
    lines = text.split("\n")
    # P5: the notice once, first; every prose line after it starts "> ", and only prose does:
    # the phrase not defined, the glossary term, the metric, its dimension, its caveat, the
    # worked question, in that order.
    assert lines[0] == QUOTED_NOTICE and lines.count(QUOTED_NOTICE) == 1
    prose = carried_prose()
    assert metric.description == prose
    shown = [line for line in lines if line.startswith("> ")]
    dimension = _quoted(metric.dimensions[0].description)
    assert shown == [*_quoted(prose) * 3, *dimension, *_quoted(prose) * 2]
    assert text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]
    assert body["metrics"][0]["description"] == prose
    assert body["metrics"][0]["dimensions"][0]["description"] == metric.dimensions[0].description
    assert body["metrics"][0]["caveats"][0]["description"] == prose
    for part in ("not_defined", "glossary", "examples"):
        assert body[part][0]["description"] == prose


@pytest.mark.slow
async def test_the_corpus_crosses_a_real_stdio_pipe_exactly(hostile: Path) -> None:
    params = StdioServerParameters(
        command=str(SUTURA), args=["mcp"], env=server_environment(hostile)
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            result = await client.call_tool("ask_metric", HOSTILE_QUESTION)
            catalog = await client.call_tool("describe_catalog", {})
    answer = _answer_of(structured_of(result))
    _assert_cells_arrived_exactly(answer)
    assert_answer_text_holds_p1_to_p4(answer, text_of(result))
    metric = wiring(hostile).load().unwrap().pinned.catalog.metrics[0]
    assert structured_of(catalog)["metrics"][0]["description"] == metric.description
