"""Every model is checked against the table its source really has before anything is answered:
a missing table, a missing column or a declared type that disagrees stops the start, naming the
catalog file, the line and the key — on DuckDB through ``sutura check``, and on PostgreSQL."""

import json
import os
from pathlib import Path

import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.edited_example import edited_example
from tests.postgres import copy_from_duckdb, scratch_database
from tests.services import problems_opening

PASSWORD_VAR = "SUTURA_MODEL_CHECK_PASSWORD"

EDITS = [
    (
        "table: orders\n",
        "table: orders_renamed\n",
        "orders.md:5: table: the source 'main' has no table 'orders_renamed' this role may read",
    ),
    (
        "table: orders\n",
        "table: main.orders\n",  # one name, dot and all: no such table (main's orders is not it)
        "orders.md:5: table: the source 'main' has no table '\"main.orders\"' this role may read"
        " (details in the log); a dot is part of a name: write a schema's table as [schema, table]",
    ),
    (
        "    type: DECIMAL(12,2)\n",
        "    type: DECIMAL(12,2)\n  - name: discount\n    type: DECIMAL(12,2)\n",
        "orders.md:18: columns[4].name: the table has no column 'discount'",
    ),
    (
        "    type: DECIMAL(12,2)\n",
        "    type: DATE\n",
        "orders.md:17: columns[3].type: declared 'DATE', but the source has ",
    ),
    (
        "    type: DECIMAL(12,2)\n",
        "    type: DECIMAL(12,3)\n",
        "orders.md:17: columns[3].type: declared 'DECIMAL(12,3)', but the source has ",
    ),
]


def _edited(example_dir: Path, config: Path, old: str, new: str, base: str) -> Path:
    def edit(name: str, text: str) -> str:
        return text.replace(old, new, 1) if name == "orders.md" else text

    return edited_example(example_dir, config, edit, base)


@pytest.mark.parametrize(("old", "new", "problem"), EDITS)
def test_check_refuses_a_model_its_duckdb_source_disagrees_with(
    example_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    problem: str,
) -> None:
    database = (example_dir / "data" / "example.duckdb").resolve()
    base = (
        "catalog: {dir: catalog, version: t}\n"
        f"sources: {{main: {{kind: duckdb, path: '{database}'}}}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    )
    config = _edited(example_dir, tmp_path, old, new, base)
    code = run_cli(["check"], Wiring({"SUTURA_CONFIG_DIR": str(config)}))
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    lines = err.splitlines()
    assert lines[0] == (
        f"sutura: catalog {config / 'catalog'}: 1 problem; files are named relative to this"
        " directory"
    )
    assert lines[1].startswith(f"sutura: {problem}"), lines[1]


def test_check_confirms_every_model_when_they_agree(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_cli(["check"], Wiring({"SUTURA_CONFIG_DIR": str(example_dir)}))
    assert code == 0
    assert "models: 2 checked against their sources" in capsys.readouterr().out


@pytest.mark.postgres
@pytest.mark.anyio
@pytest.mark.parametrize(("old", "new", "problem"), EDITS)
async def test_a_model_its_postgres_source_disagrees_with_stops_the_start(
    example_dir: Path, tmp_path: Path, postgres_dsn: str, old: str, new: str, problem: str
) -> None:
    database = (example_dir / "data" / "example.duckdb").resolve()
    with scratch_database(postgres_dsn) as scratch:
        copy_from_duckdb(database, scratch, tmp_path)
        base = (
            "catalog: {dir: catalog, version: t}\n"
            f"sources:\n  main: {json.dumps(scratch.source_settings(PASSWORD_VAR))}\n"
            "security: {identity: single-user, single_user_because: one user runs the tests}\n"
        )
        config = _edited(example_dir, tmp_path / "config", old, new, base)
        environ = {"SUTURA_CONFIG_DIR": str(config), PASSWORD_VAR: scratch.reader_password}
        problems = await problems_opening(environ, anchors=False)
    assert len(problems) == 2, problems
    assert problems[1].startswith(problem), problems[1]
    assert os.environ.get(PASSWORD_VAR) is None  # the secret came from the given environment
