"""``sutura sql`` and ``sutura prompt``: the raw tool on the command line only when enabled."""

import json
from pathlib import Path

import pytest

from sutura.core.nouns.notices import ROWS_NOTICE
from sutura.core.raw.request import MAX_STATEMENT_CHARS
from sutura.root import Wiring
from sutura.transports.cli.calling import NOT_ENABLED
from sutura.transports.cli.main import run_cli

ENABLED = {"SUTURA__TOOLS__RUN_SQL__ENABLED": "true", "SUTURA__TOOLS__RUN_SQL__SOURCE": "main"}


def _run(
    argv: list[str], config: Path, capsys: pytest.CaptureFixture[str], **env: str
) -> tuple[int, str, str]:
    code = run_cli(argv, Wiring({"SUTURA_CONFIG_DIR": str(config), **env}))
    out, err = capsys.readouterr()
    return code, out, err


def test_sql_runs_nothing_while_the_tool_is_off(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["sql", "SELECT 1"], example_dir, capsys)
    assert (code, out) == (1, "")
    assert err == f"sutura: {NOT_ENABLED}\n"


def test_sql_prints_rows_under_their_notice_when_on(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statement = "SELECT count(*) AS customers FROM customers"
    code, out, _ = _run(["sql", statement], example_dir, capsys, **ENABLED)
    lines = out.rstrip("\n").split("\n")
    assert code == 0
    assert lines[0] == ROWS_NOTICE and lines[1] == "customers" and lines[-1] == "\\. rows: 1"


def test_sql_json_prints_the_structured_half_and_a_refusal_exits_1(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(["sql", "--json", "DROP TABLE orders"], example_dir, capsys, **ENABLED)
    assert code == 1
    assert json.loads(out)["code"] == "not_read_only"


def test_sql_too_long_is_a_usage_error_that_echoes_nothing(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    statement = "SELECT 'SECRET'" + " " * MAX_STATEMENT_CHARS
    code, out, err = _run(["sql", statement], example_dir, capsys, **ENABLED)
    assert (code, out) == (2, "")
    assert err.startswith("sutura: malformed statement: $.statement: ")
    assert "SECRET" not in err


def test_the_prompt_names_run_sql_only_when_it_is_enabled(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, off, _ = _run(["prompt"], example_dir, capsys)
    _, on, _ = _run(["prompt"], example_dir, capsys, **ENABLED)
    assert "run_sql" not in off
    assert "- `run_sql`: a read-only SQL statement" in on
