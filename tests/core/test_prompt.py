"""The agent prompt: snapshot-tested; no table or column name; every refusal code; prose quoted.

Snapshots live in ``tests/core/snapshots/`` and change only when the suite runs with
``SUTURA_UPDATE_SNAPSHOTS=1``; otherwise a difference fails the test.
"""

import os
from pathlib import Path

import pytest

from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.catalog.prose import CatalogProse, catalog_notice
from sutura.core.outcome.refusal import RefusalCode, refusal
from sutura.core.prompt import render_prompt
from sutura.core.settings import LimitsSettings
from sutura.core.text.escape import escape_text, is_escaped
from sutura.core.text.untrusted import PROSE, Case
from tests.core.untrusted_samples import TABLE_AND_COLUMN_NAMES, pinned

SNAPSHOTS = Path(__file__).parent / "snapshots"
INSTRUCTIONS = "Answer in the user's language.\nRound nothing."


def _prompt(
    prose: CatalogProse = CatalogProse.QUOTED,
    *,
    run_sql: bool = False,
    instructions: str | None = INSTRUCTIONS,
    definitions: PinnedDefinitions | None = None,
) -> str:
    return render_prompt(
        definitions or pinned(),
        prose=prose,
        limits=LimitsSettings(),
        run_sql_enabled=run_sql,
        operator_instructions=instructions,
    )


def _assert_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("SUTURA_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {name}; run with SUTURA_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(encoding="utf-8")


def test_the_quoted_prompt_matches_its_snapshot() -> None:
    _assert_snapshot("prompt_quoted.md", _prompt())


def test_the_omitted_prompt_with_raw_sql_matches_its_snapshot() -> None:
    _assert_snapshot(
        "prompt_omitted_run_sql.md",
        _prompt(CatalogProse.OMITTED, run_sql=True, instructions=None),
    )


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("run_sql", [False, True])
def test_no_table_or_column_name_appears_in_the_prompt(prose: CatalogProse, run_sql: bool) -> None:
    text = _prompt(prose, run_sql=run_sql)
    assert not [name for name in TABLE_AND_COLUMN_NAMES if name in text]


def test_every_refusal_code_appears_with_its_remedy() -> None:
    text = _prompt()
    for code in RefusalCode:
        assert f"- `{code.value}`: {refusal(code).detail}" in text


def test_the_raw_sql_tool_is_described_only_when_enabled() -> None:
    assert "run_sql" not in _prompt(run_sql=False).split("## A refusal")[0]
    assert "`run_sql`: a read-only" in _prompt(run_sql=True)


def test_operator_instructions_come_last_quoted_as_operator_text() -> None:
    assert _prompt().split("\n")[-6:] == [
        "## Operator instructions",
        "",
        "The operator of this deployment adds:",
        "",
        "> Answer in the user's language.",
        "> Round nothing.",
    ]
    assert "## Operator instructions" not in _prompt(instructions=None)


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_prose_is_quoted_after_one_notice_or_omitted(
    case: Case, prose: CatalogProse
) -> None:
    text = _prompt(prose, instructions=None, definitions=pinned(case.value, "d: " + case.value))
    lines = text.split("\n")
    metrics = lines[lines.index("## Metrics") :]
    assert metrics[2] == catalog_notice(prose) and lines.count(catalog_notice(prose)) == 1
    expected = [f"> {escape_text(line)}" for line in case.value.split("\n")] if case.value else []
    expected += [f"> {escape_text(line)}" for line in ("d: " + case.value).split("\n")]
    quoted = [line for line in metrics if line.startswith(">")]
    assert quoted == (expected if prose is CatalogProse.QUOTED else [])
    assert text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\n\t\\"]
    text.encode("utf-8")
