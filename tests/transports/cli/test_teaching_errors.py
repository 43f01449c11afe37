"""Errors that teach, on the command line: a value outside a closed vocabulary is answered with
the values allowed (never repeated itself), a description written as a key points to the body,
and a source without a kind lists the kinds."""

import shutil
from pathlib import Path

import pytest

from tests.transports.cli.running import run_in_process as _run

GRAINS = "day, week, month, quarter, year"


@pytest.mark.parametrize("verb", ["query", "compile"])
def test_a_grain_that_is_none_lists_every_grain_and_each_metrics(
    verb: str, tmp_path: Path, example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config"
    shutil.copytree(example_dir, config)
    revenue = config / "catalog" / "revenue.md"
    revenue.write_text(
        revenue.read_text("utf-8").replace(
            "grains: [day, week, month, quarter, year]", "grains: [month, quarter]"
        ),
        encoding="utf-8",
    )
    argv = [verb, "revenue", "order_count", "--grain", "monthly", "--from", "2024-01-01"]
    code, out, err = _run([*argv, "--to", "2024-03-01"], config, capsys)
    assert (code, out) == (2, "")
    assert err.split("\n") == [
        f"sutura: malformed question: $.grain: expected one of {GRAINS}",
        "sutura:   the metric revenue lists: month, quarter",
        f"sutura:   the metric order_count lists: {GRAINS}",
        "",
    ]
    assert "monthly" not in err


def test_a_last_unit_that_is_none_lists_the_units(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["query", "revenue", "--grain", "month", "--last", "2", "fortnight"]
    code, out, err = _run(argv, example_dir, capsys)
    assert (code, out) == (2, "")
    assert err == f"sutura: malformed question: $.range.last.unit: expected one of {GRAINS}\n"


def test_a_direction_in_a_json_question_lists_the_directions(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = (
        '{"metrics": ["revenue"], "grain": "year", "range": {"start": "2024-01-01",'
        ' "end": "2025-01-01"}, "top": {"n": 1, "by": "revenue", "direction": "up"}}'
    )
    code, _, err = _run(["query", "--question", question], example_dir, capsys)
    assert code == 2
    assert err == "sutura: malformed question: $.top.direction: expected one of asc, desc\n"


def test_a_description_key_in_front_matter_says_it_belongs_in_the_body(
    tmp_path: Path, example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config"
    shutil.copytree(example_dir, config)
    revenue = config / "catalog" / "revenue.md"
    text = revenue.read_text("utf-8")
    revenue.write_text(
        text.replace("audience: open\n", "audience: open\ndescription: Money in.\n", 1),
        encoding="utf-8",
    )
    line = text.split("\n").index("audience: open") + 2
    code, out, err = _run(["check"], config, capsys)
    assert (code, out) == (1, "")
    assert (
        f"sutura: revenue.md:{line}: description: unknown key: a document is described by its"
        " body, the text after the closing ---\n"
    ) in err


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("path: x.duckdb", "2: sources.lake.kind: missing required key; expected one of "),
        ("kind: sqlite\n    path: x.db", "3: sources.lake.kind: expected one of "),
    ],
)
def test_a_source_without_a_known_kind_is_named_with_the_kinds(
    source: str, problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "base.yaml").write_text(f"sources:\n  lake:\n    {source}\n", encoding="utf-8")
    code, out, err = _run(["check"], tmp_path, capsys)
    assert (code, out) == (1, "")
    assert f"base.yaml:{problem}duckdb, postgres, spark\n" in err
    assert "sqlite" not in err
