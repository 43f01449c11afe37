"""Knowledge and the operator's instructions through the SDK's own client: the ``initialize``
instructions and ``describe_catalog`` carry the knowledge in the prompt's order, and the
operator's instructions last, escaped line by line — the whole prose corpus included."""

from pathlib import Path

import anyio
import pytest

from sutura.core.catalog.view.catalog import OPERATOR_HEADING
from sutura.core.nouns.notices import QUOTED_NOTICE
from sutura.core.text.escape import escape_text, is_escaped
from tests.prompt_sections import KNOWLEDGE_SECTIONS
from tests.transports.mcp.configs import carried_prose, hostile_config
from tests.transports.mcp.inprocess import connected, text_of, wiring

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def instructed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = hostile_config(tmp_path_factory.mktemp("instructed"))
    (config / "operator.md").write_bytes(("Operator says:\n" + carried_prose()).encode("utf-8"))
    with (config / "base.yaml").open("a", encoding="utf-8") as handle:
        handle.write("prompt:\n  instructions_file: operator.md\n")
    return config


def _operator_lines() -> list[str]:
    return [escape_text(line) for line in ("Operator says:\n" + carried_prose()).split("\n")]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_instructions_end_with_the_operator_s_section_escaped_line_by_line(
    instructed: Path, mode: str
) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(instructed), mode) as client:
            instructions = client.instructions or ""
    lines = instructions.split("\n")
    heading = lines.index("## Operator instructions")
    assert lines[heading + 5 :] == _operator_lines()
    sections = [line for line in lines[:heading] if line.startswith("## ")]
    assert sections == KNOWLEDGE_SECTIONS
    assert lines[:heading].count(QUOTED_NOTICE) == 1  # the operator may spell anything
    assert instructions.splitlines() == lines
    assert not [ch for ch in instructions if is_escaped(ch) and ch not in "\n\t\\"]


async def test_describe_catalog_ends_with_the_operator_s_section(instructed: Path) -> None:
    with anyio.fail_after(30):
        async with connected(wiring(instructed)) as client:
            result = await client.call_tool("describe_catalog", {})
    lines = text_of(result).split("\n")
    operator = _operator_lines()
    assert lines[-len(operator) - 1 :] == [OPERATOR_HEADING, *operator]
    assert lines[-len(operator) - 3].startswith("definitions: hostile-1 (digest ")
