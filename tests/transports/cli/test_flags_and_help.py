"""The command line says what each verb does, and refuses flags that conflict or mean nothing
alone instead of ignoring them (exit 2), whichever side of the verb ``--verbose`` is on."""

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from sutura.transports.cli.commands import COMMANDS
from sutura.transports.cli.main import build_parser
from tests.transports.cli.running import run_in_process as _run

QUARTERLY = ["revenue", "--grain", "quarter", "--from", "2024-01-01", "--to", "2025-01-01"]
VERBS = sorted(next(a for a in build_parser()._actions if a.dest == "command").choices or {})


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--top", "3"], "--top needs --top-by"),
        (["--top-by", "revenue"], "--top-by, --top-direction and --top-per-period apply to --top"),
        (["--top-direction", "asc"], "--top-by, --top-direction and --top-per-period apply to"),
        (["--top-per-period"], "--top-by, --top-direction and --top-per-period apply to --top"),
        (["--running", "--trailing", "3"], "--running and --trailing are two windows"),
        (["--last", "2", "year"], "--last and --from/--to are two ways to name the period"),
        (["--include-current"], "--include-current applies to --last only"),
    ],
)
@pytest.mark.parametrize("verb", ["query", "compile"])
def test_conflicting_or_orphan_question_flags_are_a_usage_error_naming_them(
    example_dir: Path,
    capsys: pytest.CaptureFixture[str],
    verb: str,
    flags: list[str],
    named: str,
) -> None:
    code, out, err = _run([verb, *QUARTERLY, *flags], example_dir, capsys)
    assert (code, out) == (2, "")
    assert named in err


@pytest.mark.parametrize("verb", ["query", "compile"])
def test_a_question_as_json_beside_question_flags_is_a_usage_error(
    example_dir: Path, capsys: pytest.CaptureFixture[str], verb: str
) -> None:
    question = json.dumps({"metrics": ["revenue"], "grain": "year", "range": {}})
    code, out, err = _run([verb, "--question", question, "--by", "region"], example_dir, capsys)
    assert (code, out) == (2, "")
    assert "--question carries the whole question; drop --by" in err


def test_top_with_top_by_and_direction_orders_as_asked(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--by", "region", "--top", "2", "--top-by", "revenue", "--top-direction", "asc"]
    code, out, _ = _run(["query", *QUARTERLY, *flags], example_dir, capsys)
    rows = out.split("\n")[1:3]
    assert code == 0 and len(rows) == 2
    assert float(rows[0].split("\t")[2]) <= float(rows[1].split("\t")[2])


def test_compare_flag_adds_the_prior_value_change_and_relative_change(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["query", *QUARTERLY, "--compare", "previous_year"], example_dir, capsys)
    header, *rows = out.split("\n")[:5]
    assert code == 0
    assert header.split("\t") == [
        "period",
        "revenue",
        "revenue.prior",
        "revenue.change",
        "revenue.relative_change",
    ]
    for row in rows:
        _, value, prior, change, _ = row.split("\t")
        assert Decimal(value) - Decimal(prior) == Decimal(change)


@pytest.mark.parametrize(
    ("flags", "column"),
    [(["--running"], "revenue.running"), (["--trailing", "2", "--fill"], "revenue.trailing")],
)
def test_window_flags_add_a_windowed_column(
    example_dir: Path, capsys: pytest.CaptureFixture[str], flags: list[str], column: str
) -> None:
    code, out, _ = _run(["query", *QUARTERLY, *flags], example_dir, capsys)
    lines = out.split("\n")
    assert code == 0 and lines[0].split("\t") == ["period", "revenue", column]
    values = [Decimal(line.split("\t")[1]) for line in lines[1:5]]
    windowed = [Decimal(line.split("\t")[2]) for line in lines[1:5]]
    if column == "revenue.running":
        assert windowed == [sum(values[: i + 1]) for i in range(4)]
    else:  # the first quarter's window reaches back into 2023, read though not shown
        assert windowed[0] > values[0]
        assert windowed[1:] == [values[i - 1] + values[i] for i in range(1, 4)]


def test_top_per_period_flag_keeps_the_first_rows_of_each_period(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--by", "region", "--top", "1", "--top-by", "revenue", "--top-per-period"]
    code, out, _ = _run(["query", *QUARTERLY, *flags], example_dir, capsys)
    periods = [line.split("\t")[0] for line in out.split("\n")[1:5]]
    assert code == 0
    assert periods == ["2024-01-01", "2024-04-01", "2024-07-01", "2024-10-01"]


@pytest.mark.parametrize("verb", VERBS)
def test_every_verb_help_says_what_it_does_and_shows_an_example(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args([verb, "--help"])
    text = capsys.readouterr().out
    assert exited.value.code == 0
    description = text.split("\n\n")[1]
    assert len(description.split()) >= 4, text
    assert "example" in text and f"sutura {verb}" in text.split("example", 1)[1]
    assert "--verbose" in text


def test_the_commands_table_names_every_verb() -> None:
    assert set(VERBS) == COMMANDS


@pytest.mark.parametrize("verb", VERBS)
def test_a_command_line_naming_one_verb_parses_it_as_the_whole_parser_does(
    verb: str, capsys: pytest.CaptureFixture[str]
) -> None:
    helps = []
    for parser in (build_parser(), build_parser(verb)):
        with pytest.raises(SystemExit):
            parser.parse_args([verb, "--help"])
        helps.append(capsys.readouterr().out)
    lone = next(a for a in build_parser(verb)._actions if a.dest == "command").choices or {}
    assert list(lone) == [verb]
    assert helps[0] == helps[1]


@pytest.mark.slow
def test_verbose_works_after_the_verb_as_before_it(example_dir: Path) -> None:
    script = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
    env = {**os.environ, "SUTURA_CONFIG_DIR": str(example_dir)}
    quiet, before, after = (
        subprocess.run([*script, *argv], env=env, capture_output=True, text=True, timeout=60)
        for argv in (["check"], ["--verbose", "check"], ["check", "--verbose"])
    )
    assert (quiet.returncode, before.returncode, after.returncode) == (0, 0, 0)
    assert "DEBUG" not in quiet.stderr
    assert "DEBUG" in before.stderr and "DEBUG" in after.stderr


def test_describe_shows_a_description_escaped_once_as_json_of_the_same_value(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["describe", "revenue"], example_dir, capsys)
    description = json.loads(out)["definition"]["description"]
    assert code == 0
    assert "\n" in description and "\\n" not in description
    assert "\\\\n" not in out


def test_describe_writes_an_invisible_character_as_a_json_escape_of_itself(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "cfg"
    catalog = config / "catalog"
    catalog.mkdir(parents=True)
    for document in (example_dir / "catalog").iterdir():
        text = document.read_text(encoding="utf-8")
        if document.name.startswith("revenue"):
            text = text.replace("Revenue:", "Rev\u202eenue \U000e0041:", 1)
        (catalog / document.name).write_text(text, encoding="utf-8")
    database = (example_dir / "data" / "example.duckdb").resolve()
    (config / "base.yaml").write_text(
        f"catalog: {{dir: catalog}}\nsources: {{main: {{kind: duckdb, path: '{database}'}}}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    )
    code, out, _ = _run(["describe", "revenue"], config, capsys)
    assert code == 0
    assert "\u202e" not in out and "\U000e0041" not in out
    assert "Rev\\u202eenue \\udb40\\udc41:" in out
    assert json.loads(out)["definition"]["description"].startswith("Rev\u202eenue \U000e0041:")
