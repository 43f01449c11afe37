"""The agent prompt: snapshot-tested; sections in the reference's order; no table or column name;
every refusal code; knowledge and prose quoted or omitted; the operator's instructions last.

Snapshots live in ``tests/core/snapshots/`` and change only when the suite runs with
``SUTURA_UPDATE_SNAPSHOTS=1``; otherwise a difference fails the test.
"""

import os
import re
from pathlib import Path

import pytest

from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.prose import CatalogProse, catalog_notice
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.prompt import render_prompt
from sutura.core.settings import LimitsSettings
from sutura.core.text.escape import escape_text, is_escaped
from sutura.core.text.untrusted import PROSE, Case
from tests.core.untrusted_samples import (
    KNOWLEDGE_NAMES,
    TABLE_AND_COLUMN_NAMES,
    knowledge,
    pinned,
)
from tests.prompt_sections import KNOWLEDGE_SECTIONS, OPERATOR_SECTION

SNAPSHOTS = Path(__file__).parent / "snapshots"
INSTRUCTIONS = "Answer in the user's language.\nRound nothing."
SECTIONS = [*KNOWLEDGE_SECTIONS, OPERATOR_SECTION]
"""The reference's order: knowledge sections between the ones every prompt has."""
WITHOUT_KNOWLEDGE = {"## Terms not defined here", "## Glossary", "## Worked questions"}


def _prompt(
    prose: CatalogProse = CatalogProse.QUOTED,
    *,
    run_sql: bool = False,
    instructions: str | None = INSTRUCTIONS,
    definitions: PinnedDefinitions | None = None,
) -> str:
    return render_prompt(
        definitions or pinned(knowledge=knowledge()),
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


def _headings(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("## ")]


def test_the_quoted_prompt_matches_its_snapshot() -> None:
    _assert_snapshot("prompt_quoted.md", _prompt())


def test_the_omitted_prompt_with_raw_sql_matches_its_snapshot() -> None:
    _assert_snapshot(
        "prompt_omitted_run_sql.md",
        _prompt(CatalogProse.OMITTED, run_sql=True, instructions=None),
    )


@pytest.mark.parametrize("prose", list(CatalogProse))
def test_the_sections_come_in_the_reference_order(prose: CatalogProse) -> None:
    assert _headings(_prompt(prose)) == SECTIONS
    bare = _prompt(prose, definitions=pinned())
    assert _headings(bare) == [s for s in SECTIONS if s not in WITHOUT_KNOWLEDGE]
    assert "This catalog declares no glossary, caveats, terms not defined or worked" in bare


def test_the_knowledge_section_counts_what_the_catalog_declares() -> None:
    expected = "This catalog declares 2 glossary terms, 1 caveat, 1 term not defined, 1 worked "
    assert expected + "question." in _prompt().split("\n")


def test_each_caveat_sits_under_the_metric_it_concerns() -> None:
    metrics = _prompt().split("## Metrics")[1].split("\n\n## ")[0].split("\n")
    assert metrics[-2:] == ["caveat: late_bookings", "> caveat: Written by an author."]


def test_a_worked_question_is_the_json_ask_metric_takes() -> None:
    worked = _prompt().split("## Worked questions")[1].split("\n")
    assert worked[4:7] == [
        "example: eu_revenue_by_channel",
        "asked:\tHow much did EU customers buy per channel, month by month?",
        'question: {"metrics":["revenue"],"grain":"month","range":{"start":"2024-01-01",'
        '"end":"2024-04-01"},"dimensions":["channel"],"filters":[{"op":"eq",'
        '"dimension":"region","value":"EU"}]}',
    ]


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("run_sql", [False, True])
def test_no_table_or_column_name_appears_in_the_prompt_with_knowledge_present(
    prose: CatalogProse, run_sql: bool
) -> None:
    text = _prompt(prose, run_sql=run_sql)
    assert "## Glossary" in text and "## Worked questions" in text
    assert not [name for name in TABLE_AND_COLUMN_NAMES if name in text]
    assert not re.search(r"\bsales\b", text)  # the model's name


def test_every_refusal_code_appears_with_its_remedy() -> None:
    text = _prompt()
    for code in RefusalCode:
        assert f"- `{code.value}`: {refusal(code).detail}" in text


def test_the_raw_sql_tool_is_described_only_when_enabled() -> None:
    assert "run_sql" not in _prompt(run_sql=False)
    assert "`run_sql`: a read-only" in _prompt(run_sql=True)


def test_operator_instructions_come_last_as_the_operator_s_own_section() -> None:
    lines = _prompt().split("\n")
    heading = lines.index("## Operator instructions")
    assert lines[heading + 5 :] == ["Answer in the user's language.", "Round nothing."]
    assert "## Operator instructions" not in _prompt(instructions=None)


@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_operator_instructions_are_escaped_line_by_line_and_never_quoted_as_prose(
    case: Case,
) -> None:
    text = _prompt(instructions="Operator: " + case.value)
    lines = text.split("\n")
    expected = [escape_text(line) for line in ("Operator: " + case.value).split("\n")]
    assert lines[lines.index("## Operator instructions") + 5 :] == expected
    body = text.rstrip("\n")  # an instruction ending in a line break ends the prompt with one
    assert body.splitlines() == body.split("\n")
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\n\t\\"]


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_prose_in_every_body_is_quoted_after_one_notice_or_omitted(
    case: Case, prose: CatalogProse
) -> None:
    definitions = pinned(case.value, "d: " + case.value, knowledge=knowledge(case.value))
    text = _prompt(prose, instructions=None, definitions=definitions)
    lines = text.split("\n")
    bodies = [f"{kind}: {case.value}" for kind in ("phrase", "term", "term")]
    bodies += [case.value, "d: " + case.value, "caveat: " + case.value, "example: " + case.value]
    expected = [f"> {escape_text(line)}" for body in bodies if body for line in body.split("\n")]
    quoted = [line for line in lines if line.startswith(">")]
    assert quoted == (expected if prose is CatalogProse.QUOTED else [])
    notice = catalog_notice(prose)
    assert lines.count(notice) == 1 and lines.index(notice) < lines.index("not defined: churn")
    assert all(f"{name}" in text for name in KNOWLEDGE_NAMES)
    assert text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\n\t\\"]
    text.encode("utf-8")
