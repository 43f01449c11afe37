"""The example's knowledge through the command line: ``sutura prompt``, ``sutura catalog`` (both
halves) and ``sutura check``, pinned by snapshots; under ``omitted`` no body byte in any of them.

Snapshots live in ``tests/transports/cli/snapshots/`` and change only when the suite runs with
``SUTURA_UPDATE_SNAPSHOTS=1``.
"""

import json
import os
import re
from pathlib import Path

import pytest

from sutura.boundary.catalog_files import load_catalog
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.clock import unclocked
from tests.prompt_sections import KNOWLEDGE_SECTIONS

SNAPSHOTS = Path(__file__).parent / "snapshots"


def _out(argv: list[str], config: Path, capsys: pytest.CaptureFixture[str], **env: str) -> str:
    code = run_cli(argv, Wiring({"SUTURA_CONFIG_DIR": str(config), **env}))
    out, err = capsys.readouterr()
    assert (code, err) == (0, ""), err
    return out


def _assert_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("SUTURA_UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {name}; run with SUTURA_UPDATE_SNAPSHOTS=1 to create it"
    assert text == path.read_text(encoding="utf-8"), f"{name} drifted; review, then update"


def test_sutura_prompt_on_the_example_shows_each_knowledge_section_in_order(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = _out(["prompt"], example_dir, capsys)
    assert [line for line in prompt.split("\n") if line.startswith("## ")] == KNOWLEDGE_SECTIONS
    _assert_snapshot("example_prompt.md", prompt)


def test_sutura_catalog_on_the_example_shows_knowledge_in_both_halves(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _out(["catalog"], example_dir, capsys)
    heads = [line.split(": ")[0] for line in text.split("\n") if not line.startswith(">")]
    firsts = [heads.index(kind) for kind in ("not defined", "term", "metric", "example")]
    assert firsts == sorted(firsts) and "caveat" in heads
    # Where each metric's data is: its days are the data's, its instant this run's clock.
    assert "data: from 2023-01-01 to 2025-12-31 (as of " in text
    _assert_snapshot("example_catalog.txt", unclocked(text))
    body = json.loads(_out(["catalog", "--json"], example_dir, capsys))
    for metric in body["metrics"]:
        assert metric["data"].pop("as_of")
    assert [t["term"] for t in body["glossary"]] == ["sales", "web sales"]
    assert [e["name"] for e in body["examples"]] == [
        "busiest_web_months_2024",
        "revenue_by_region_2024",
        "revenue_growth_2024",
    ]
    _assert_snapshot("example_catalog.json", json.dumps(body, indent=2, ensure_ascii=False))


def _bodies(example_dir: Path) -> list[str]:
    """Every line of every author-written body of the example's catalog, knowledge included."""
    catalog = load_catalog(example_dir / "catalog", "example-1").unwrap().catalog
    knowledge = catalog.knowledge
    texts = [m.description for m in catalog.metrics]
    texts += [d.description for m in catalog.metrics for d in m.dimensions]
    texts += [g.description for g in knowledge.glossary]
    texts += [c.description for c in knowledge.caveats]
    texts += [n.description for n in knowledge.not_defined]
    texts += [e.description for e in knowledge.examples]
    return [line for text in texts for line in text.split("\n") if line.strip()]


def test_under_omitted_no_body_byte_appears_in_either_half_or_the_prompt(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    omitted = {"SUTURA__PROMPT__CATALOG_PROSE": "omitted"}
    carried = [
        _out(["catalog"], example_dir, capsys, **omitted),
        _out(["catalog", "--json"], example_dir, capsys, **omitted),
        _out(["prompt"], example_dir, capsys, **omitted),
    ]
    bodies = _bodies(example_dir)
    assert len(bodies) > 20
    assert not [(line, i) for i, out in enumerate(carried) for line in bodies if line in out]
    assert "description" not in carried[1]
    for out in carried:  # names, terms, phrases and worked questions stay
        assert "web sales" in out and "churn" in out and "busiest_web_months_2024" in out
    quoted = _out(["catalog"], example_dir, capsys)
    assert all(line in quoted for line in bodies)


def test_sutura_check_counts_the_knowledge(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(["check"], example_dir, capsys)
    expected = "knowledge: 2 glossary terms, 1 caveat, 1 term not defined, 3 worked questions"
    assert expected in out.split("\n")


def test_no_table_column_model_or_relationship_name_of_the_example_is_in_its_prompt(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = load_catalog(example_dir / "catalog", "example-1").unwrap().catalog
    physical = {m.name for m in catalog.models} | {m.table for m in catalog.models}
    physical |= {c.name for m in catalog.models for c in m.columns}
    physical |= {r.name for r in catalog.relationships}
    for prose in ("quoted", "omitted"):
        prompt = _out(["prompt"], example_dir, capsys, SUTURA__PROMPT__CATALOG_PROSE=prose)
        assert "## Worked questions" in prompt
        assert not physical & set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", prompt))
