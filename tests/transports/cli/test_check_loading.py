"""``sutura check`` run as the console script, over deployments an operator got wrong."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.edited_example import BASE, customers_on_crm, edited_example

SCRIPT = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]


def _check(config: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SUTURA_CONFIG_DIR": str(config), **extra}
    env = {k: v for k, v in env.items() if not k.startswith("SUTURA__") or k in extra}
    return subprocess.run(
        [*SCRIPT, "check"], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_check_refuses_a_relationship_into_another_source_naming_file_line_and_key(
    example_dir: Path, tmp_path: Path
) -> None:
    base = BASE + "  crm: {kind: duckdb, path: crm.duckdb}\n"
    checked = _check(edited_example(example_dir, tmp_path, customers_on_crm, base))
    assert checked.returncode == 1 and checked.stdout == ""
    lines = checked.stderr.splitlines()
    catalog_dir = (tmp_path / "catalog").resolve()
    assert lines[0].startswith(f"sutura: catalog {catalog_dir}: ")
    assert lines[0].endswith("1 problem; files are named relative to this directory")
    assert "sutura: order_customer.md:5: target_model: the model 'customers' reads the source" in (
        checked.stderr
    )
    assert all(str(tmp_path) not in line for line in lines[1:])


def test_check_names_a_lone_surrogate_escape_instead_of_an_internal_error(
    example_dir: Path, tmp_path: Path
) -> None:
    def escaped(name: str, text: str) -> str:
        return (
            text.replace("value: cancelled", 'value: "\\udc00"') if name == "revenue.md" else text
        )

    checked = _check(edited_example(example_dir, tmp_path, escaped))
    assert checked.returncode == 1
    assert "internal error" not in checked.stderr
    assert (
        "sutura: revenue.md:14: required_filters[0].not_equals.value: the value holds a lone"
        in (checked.stderr)
    )


def test_check_names_a_deeply_nested_settings_file_instead_of_an_internal_error(
    example_dir: Path, tmp_path: Path
) -> None:
    config = edited_example(example_dir, tmp_path, base=BASE + "limits: " + "[" * 900 + "]" * 900)
    checked = _check(config)
    assert checked.returncode == 1
    assert checked.stderr == f"sutura: {config / 'base.yaml'}:5: nests deeper than 16 levels\n"


GC_SCRIPT = (
    "import gc, json, sys; from sutura.root import main; code = main(sys.argv[1:]); "
    "sys.stderr.write('GC ' + json.dumps([gc.isenabled(), gc.get_freeze_count()]) + '\\n'); "
    "sys.exit(code)"
)


def test_check_and_catalog_leave_the_loaded_catalog_out_of_later_collections(
    example_dir: Path,
) -> None:
    env = {**os.environ, "SUTURA_CONFIG_DIR": str(example_dir)}
    for command in ("check", "catalog"):
        done = subprocess.run(
            [sys.executable, "-c", GC_SCRIPT, command],
            env={k: v for k, v in env.items() if not k.startswith("SUTURA__")},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        collecting, frozen = json.loads(done.stderr.rsplit("GC ", 1)[1])
        assert collecting and frozen > 10_000, (command, frozen)


@pytest.mark.parametrize(
    ("form", "column", "value", "problem"),
    [
        (
            "equals",
            "amount",
            "'10.005'",
            "10.005 has 3 decimal places; the column is decimal(12,2)",
        ),
        ("not_equals", "customer_id", "'7.5'", "7.5 is not an integer, and the column is one"),
        ("equals", "customer_id", "abc", "expected a number written with digits"),
        ("equals", "ordered_on", "'2024-1-5'", "expected a date written YYYY-MM-DD"),
        ("equals", "is_paid", "'yes'", "expected true or false, as the column is boolean"),
    ],
)
def test_check_refuses_an_older_filter_value_its_typed_column_cannot_hold(
    example_dir: Path, tmp_path: Path, form: str, column: str, value: str, problem: str
) -> None:
    # Bound as text, each engine converted such a value its own way: DuckDB rounded 7.5 into
    # the INTEGER 8 and counted that customer, PostgreSQL refused to compare.
    def added(name: str, text: str) -> str:
        rule = f"      value: cancelled\n  - {form}:\n      column: {column}\n      value: {value}"
        return text.replace("      value: cancelled", rule) if name == "revenue.md" else text

    checked = _check(edited_example(example_dir, tmp_path, added))
    assert checked.returncode == 1
    assert f"sutura: revenue.md:17: required_filters[1].{form}.value: {problem}" in checked.stderr


def test_check_takes_an_older_filter_value_of_its_typed_column(
    example_dir: Path, tmp_path: Path
) -> None:
    def added(name: str, text: str) -> str:
        rule = "      value: cancelled\n  - not_equals:\n      column: amount\n      value: '10.5'"
        return text.replace("      value: cancelled", rule) if name == "revenue.md" else text

    config = edited_example(example_dir, tmp_path, added)
    shutil.copyfile(example_dir / "data" / "example.duckdb", config / "main.duckdb")
    checked = _check(config)
    # Loaded, checked and run: no order of the example is 10.50, so the anchor still holds.
    assert (checked.returncode, checked.stderr) == (0, "")
    assert "anchors: 2 reproduced" in checked.stdout


def test_check_quotes_a_source_alias_that_is_not_a_plain_name_and_names_its_line(
    example_dir: Path, tmp_path: Path
) -> None:
    base = BASE + "  main.x:\n    kind: duckdb\n    path: 42\n"
    checked = _check(edited_example(example_dir, tmp_path, base=base))
    assert checked.returncode == 1 and checked.stdout == ""
    assert checked.stderr.splitlines() == [
        f'sutura: {tmp_path / "base.yaml"}:7: sources."main.x".path: expected `str`, got `int`'
    ]
