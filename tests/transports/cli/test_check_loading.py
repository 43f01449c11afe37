"""``sutura check`` run as the console script, over deployments an operator got wrong."""

import json
import os
import subprocess
import sys
from pathlib import Path

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
