"""How the command line prints rows: the text half when piped or asked, an aligned table on a
terminal, CSV, the structured half; and the shell completion scripts."""

import csv
import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli

QUESTION = [
    "query",
    "revenue",
    "average_order_value",
    "--grain",
    "quarter",
    "--from",
    "2024-01-01",
    "--to",
    "2024-07-01",
    "--by",
    "region",
]
RAW = {"SUTURA__TOOLS__RUN_SQL__ENABLED": "true", "SUTURA__TOOLS__RUN_SQL__SOURCE": "main"}
# Cells a data system may hold: a comma and quotes, NULL, the empty string, a line break, a
# bidi override, a tab and a leading quote.
TRICKY = (
    "SELECT 'a,\"b\"' AS said, NULL AS nothing, '' AS empty,"
    " 'line' || chr(10) || 'break' AS two_lines, 'x' || chr(8238) || 'y' AS bidi,"
    " chr(9) || '\"q' AS tab_quote, 12.50 AS amount"
)


def _run(
    argv: list[str], config: Path, capsys: pytest.CaptureFixture[str], **env: str
) -> tuple[int, str]:
    code = run_cli(argv, Wiring({"SUTURA_CONFIG_DIR": str(config), **env}))
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def test_piped_output_is_the_text_half_as_under_text_and_format_text(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, piped = _run(QUESTION, example_dir, capsys)
    _, text = _run([*QUESTION, "--text"], example_dir, capsys)
    _, formatted = _run([*QUESTION, "--format", "text"], example_dir, capsys)
    assert piped == text == formatted
    assert piped.split("\n")[0] == "period\tregion\trevenue\taverage_order_value"


def test_the_table_aligns_the_text_halfs_cells_and_counts_its_rows_in_words(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, text = _run(QUESTION, example_dir, capsys)
    code, table = _run([*QUESTION, "--format", "table"], example_dir, capsys)
    assert code == 0
    text_lines, table_lines = text.split("\n"), table.split("\n")
    rows = text_lines.index("\\. rows: 8")
    assert table_lines[0].split() == text_lines[0].split("\t")
    assert set(table_lines[1]) == {"-", " "}
    assert [line.split() for line in table_lines[2 : rows + 1]] == [
        line.split("\t") for line in text_lines[1:rows]
    ]
    # A person reads the count in words; the rest of the trailer is the text half's own.
    assert table_lines[rows + 1] == "8 rows"
    assert table_lines[rows + 2 :] == text_lines[rows + 1 :]
    assert not any(line.startswith("\\. rows") for line in table_lines)
    widths = {len(line) for line in table_lines[1 : rows + 1]}
    assert widths == {len(table_lines[1])}  # numbers are right-aligned to the rule's end
    header = table_lines[0]
    for name in ("region", "revenue"):
        column = header.index(name)
        assert all(line[column - 2 : column] == "  " for line in table_lines[2 : rows + 1])


def test_csv_holds_the_structured_rows(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run([*QUESTION, "--format", "csv"], example_dir, capsys)
    _, structured = _run([*QUESTION, "--format", "json"], example_dir, capsys)
    _, short = _run([*QUESTION, "--json"], example_dir, capsys)
    assert code == 0 and structured == short
    answer = json.loads(structured)
    assert list(csv.reader(io.StringIO(out))) == [answer["columns"], *answer["rows"]]


def test_untrusted_cells_are_escaped_in_the_table_and_in_csv(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, table = _run(["sql", "--format", "table", TRICKY], example_dir, capsys, **RAW)
    assert code == 0
    assert "\u202e" not in table and "\t" not in table
    lines = table.split("\n")
    header = lines.index(next(line for line in lines if line.startswith("said")))
    row = lines[header + 2]
    assert row.split() == ['a,"b"', "\\N", "\\e", "line\\nbreak", "x\\u202ey", '\\t"q', "12.50"]
    code, out = _run(["sql", "--format", "csv", TRICKY], example_dir, capsys, **RAW)
    assert code == 0
    assert out == (
        "said,nothing,empty,two_lines,bidi,tab_quote,amount\n"
        '"a,""b""",,"",line\\nbreak,x\\u202ey,"\\t""q",12.50\n'
    )
    assert list(csv.reader(io.StringIO(out)))[1] == [
        'a,"b"',
        "",
        "",
        "line\\nbreak",
        "x\\u202ey",
        '\\t"q',
        "12.50",
    ]


def test_format_and_its_short_forms_exclude_each_other(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli([*QUESTION, "--json", "--format", "csv"], Wiring({}))
    _, err = capsys.readouterr()
    assert code == 2
    assert "argument --format: not allowed with argument --json" in err


@pytest.mark.slow
def test_a_terminal_gets_the_table(example_dir: Path) -> None:
    """The console script writing to a pseudo-terminal prints the aligned table."""
    script = Path(sys.executable).with_name("sutura")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(script), *QUESTION],
            stdout=follower,
            stderr=subprocess.PIPE,
            env={**os.environ, "SUTURA_CONFIG_DIR": str(example_dir)},
            timeout=60,
            check=False,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: everything was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    assert done.returncode == 0, done.stderr
    out = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    lines = out.split("\n")
    assert lines[0].split() == ["period", "region", "revenue", "average_order_value"]
    assert set(lines[1]) == {"-", " "}
    assert lines[10] == "8 rows"


def test_bash_completion_completes_verbs_flags_and_choices(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bash = shutil.which("bash")
    assert bash is not None  # the project's own scripts need bash
    assert run_cli(["completion", "bash"], Wiring({})) == 0
    (tmp_path / "sutura.bash").write_text(capsys.readouterr().out, encoding="utf-8")
    probe = (
        f"source {tmp_path / 'sutura.bash'}\n"
        'complete_of() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=();'
        ' _shtab_sutura; echo "${COMPREPLY[*]}"; }\n'
        "complete_of sutura qu\n"
        "complete_of sutura query --form\n"
        "complete_of sutura query --format ''\n"
        "complete_of sutura schema ''\n"
    )
    done = subprocess.run(
        [bash, "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.split("\n")[:4] == [
        "query",
        "--format",
        "text table csv json",
        "catalog settings",
    ]


def test_zsh_completion_declares_every_verb(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["completion", "zsh"], Wiring({})) == 0
    script = capsys.readouterr().out
    assert script.startswith("#compdef sutura")
    for verb in ("init", "doctor", "schema", "query", "completion"):
        assert re.search(rf"^\s*{verb}:'", script, re.M), verb
    zsh = shutil.which("zsh")
    if zsh is not None:  # where zsh is installed, the script must at least parse
        subprocess.run([zsh, "-n", "-c", script], check=True, timeout=30)
