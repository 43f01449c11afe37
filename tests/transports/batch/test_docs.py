"""``docs/batch.md`` stays true: its worked script runs, its tables name every problem and flag."""

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sutura.transports.batch.convert import Target
from sutura.transports.batch.problems import RecordProblem
from sutura.transports.cli.main import build_parser
from tests.transports.batch.samples import render_cli

ROOT = Path(__file__).resolve().parents[3]
DOC = ROOT / "docs" / "batch.md"
SCRIPT = ROOT / "docs" / "examples" / "batch_example.py"
MODULES = ["atomic", "convert", "framing", "problems", "progress", "records", "stream"]


@pytest.mark.parametrize("name", MODULES)
def test_the_examples_in_each_batch_module_docstring_run(name: str) -> None:
    module = importlib.import_module(f"sutura.transports.batch.{name}")
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    failed, _ = doctest.testmod(module, optionflags=flags)
    assert failed == 0


def test_the_worked_script_in_the_doc_is_the_example_file() -> None:
    found = re.search(r"<!-- batch_example.py -->\n```python\n(.*?)```\n", DOC.read_text(), re.S)
    assert found is not None
    assert found.group(1) == SCRIPT.read_text()


@pytest.mark.slow
def test_the_worked_script_runs_and_every_text_half_decodes_to_its_outcome(
    example_dir: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(example_dir), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "3 records: 3 rendered, 0 invalid"
    assert lines[1] == "record 1: period\tregion\trevenue"
    assert lines[3].startswith("record 3: refused (dimension_not_permitted): ")
    cli = render_cli(str(tmp_path / "outcomes.jsonl"))
    assert cli.stdout == (tmp_path / "outcomes.txt").read_bytes()


@pytest.mark.parametrize("problem", list(RecordProblem), ids=str)
def test_every_record_problem_is_documented(problem: RecordProblem) -> None:
    assert f"| `{problem.value}` |" in DOC.read_text()


def test_every_render_flag_and_target_is_documented() -> None:
    verbs = next(a for a in build_parser()._actions if a.dest == "command")
    assert isinstance(verbs.choices, dict)
    render = verbs.choices["render"]
    options = {flag for action in render._actions for flag in action.option_strings}
    flags = {flag for flag in options if flag.startswith("--")} - {"--help", "--verbose"}
    doc = DOC.read_text()
    assert flags == {"--to", "--out", "--max-record-bytes", "--jobs"}
    assert all(f"`{flag} " in doc for flag in flags)
    assert all(f"`--to {target.value}`" in doc for target in Target)
