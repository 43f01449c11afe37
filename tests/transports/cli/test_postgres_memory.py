"""A stock PostgreSQL server answers ordinary questions over a few hundred thousand rows through
a role made by docs/sources.md's recipe (``temp_file_limit = 0``), before ``ANALYZE`` too; and
when the memory budget is set too low, ``check`` and ``doctor`` name the problem."""

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import psycopg
import pytest
from psycopg import sql

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.postgres import Scratch, scratch_database

DOC: Final = Path(__file__).resolve().parents[3] / "docs" / "sources.md"
FLIGHTS: Final = 336_000
PASSWORD_VAR: Final = "SUTURA_MEMORY_TEST_PASSWORD"
YEAR: Final = ["--grain", "year", "--from", "2023-01-01", "--to", "2024-01-01", "--text"]

MODEL: Final = """---
kind: model
name: flights
source: main
table: flights
columns: [fl_date, carrier, origin, dep_delay]
---
"""
METRIC: Final = """---
kind: metric
name: flight_count
model: flights
measure:
  simple:
    aggregate: count
    column: fl_date
time_column: fl_date
grains: [month, year]
dimensions:
  - name: carrier
    column: carrier
audience: open
---
Flights flown.
"""


def role_recipe(scratch: Scratch) -> list[str]:
    """docs/sources.md's role recipe, for the scratch database's reader and table."""
    text = DOC.read_text(encoding="utf-8")
    recipe = text[text.index("Grant it exactly this:") :]
    (block,) = re.findall(r"```sql\n(.*?)```", recipe, flags=re.DOTALL)[:1]
    lines = [line.split("--")[0] for line in block.split("\n")]  # comments end at the line's end
    statements = [s.strip() for s in " ".join(lines).split(";") if s.strip()]
    made = [
        s.replace("sutura_reader", scratch.reader)
        .replace("DATABASE shop", f"DATABASE {scratch.database}")
        .replace("public.orders, public.customers", "public.flights")
        .replace("'…'", f"'{scratch.reader_password}'")
        for s in statements
    ]
    # The scratch role exists already: every other line of the recipe applies as written.
    applied = [s for s in made if not s.startswith("CREATE ROLE")]
    assert len(applied) == 7 and applied[-2].endswith("SET temp_file_limit = 0")
    return applied


@pytest.fixture(scope="module")
def stock(tmp_path_factory: pytest.TempPathFactory, postgres_dsn: str) -> Iterator[Path]:
    """336,000 flights on the test server (never analysed), read through the recipe's role."""
    root = tmp_path_factory.mktemp("memory")
    with scratch_database(postgres_dsn) as scratch:
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            stock_default = "SELECT boot_val FROM pg_settings WHERE name = 'work_mem'"
            assert admin.execute(stock_default).fetchone() == ("4096",)  # 4MB
            admin.execute(
                "CREATE TABLE flights (fl_date date, carrier text, origin text, dep_delay int)"
            )
            admin.execute(
                "INSERT INTO flights SELECT DATE '2023-01-01' + g % 365, 'C' || g % 17,"
                f" 'O' || g % 300, g % 60 FROM generate_series(1, {FLIGHTS}) AS g"
            )
            for statement in role_recipe(scratch):
                admin.execute(statement.encode())
        catalog = root / "catalog"
        catalog.mkdir()
        (catalog / "flights.md").write_text(MODEL, encoding="utf-8")
        (catalog / "flight_count.md").write_text(METRIC, encoding="utf-8")
        source = scratch.source_settings(PASSWORD_VAR)
        settings = {
            "catalog": {"dir": "catalog", "version": "flights-1"},
            "sources": {"main": source},
            "security": {"identity": "single-user", "single_user_because": "one tester"},
        }
        (root / "base.yaml").write_text(json.dumps(settings), encoding="utf-8")
        (root / "password").write_text(scratch.reader_password, encoding="utf-8")
        (root / "admin").write_text(scratch.admin_dsn, encoding="utf-8")
        (root / "reader").write_text(scratch.reader, encoding="utf-8")
        yield root


def _environ(config: Path, **settings: str) -> dict[str, str]:
    password = (config / "password").read_text(encoding="utf-8")
    variables = {f"SUTURA__{k}": v for k, v in settings.items()}
    return {"SUTURA_CONFIG_DIR": str(config), PASSWORD_VAR: password, **variables}


def _ask_a_year(environ: Wiring, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["query", "flight_count", *YEAR, "--by", "carrier"], environ)
    out, err = capsys.readouterr()
    assert code == 0, out + err
    lines = out.split("\n")
    assert lines[0] == "period\tcarrier\tflight_count"
    rows = [line.split("\t") for line in lines[1 : lines.index("\\. rows: 17")]]
    assert len(rows) == 17 and sum(int(row[2]) for row in rows) == FLIGHTS
    code = run_cli(["query", "flight_count", *YEAR], environ)
    out, err = capsys.readouterr()
    assert code == 0 and out.split("\n")[1] == f"2023-01-01\t{FLIGHTS}", out + err


@pytest.mark.postgres
def test_a_yearly_question_by_carrier_over_336_000_rows_is_answered(
    stock: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = Wiring(_environ(stock))
    _ask_a_year(environ, capsys)
    # The role at PostgreSQL's own work_mem (an operator who skipped that line of the recipe):
    # sutura sizes its sessions itself.
    reader = (stock / "reader").read_text(encoding="utf-8")
    with psycopg.connect((stock / "admin").read_text(encoding="utf-8"), autocommit=True) as admin:
        admin.execute(sql.SQL("ALTER ROLE {} RESET work_mem").format(sql.Identifier(reader)))
    try:
        _ask_a_year(environ, capsys)
    finally:
        with psycopg.connect(
            (stock / "admin").read_text(encoding="utf-8"), autocommit=True
        ) as admin:
            admin.execute(
                sql.SQL("ALTER ROLE {} SET work_mem = '64MB'").format(sql.Identifier(reader))
            )


@pytest.mark.postgres
def test_check_and_doctor_name_a_memory_budget_too_low_to_sort(
    stock: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = Wiring(_environ(stock, SOURCES__MAIN__MEMORY_BUDGET="8MB"))
    problem = (
        "source main: a session cannot sort 100,000 rows in memory (work_mem 1MB,"
        " temp_file_limit 0), so ordinary questions would be refused resources_exhausted;"
        " raise sources.main.memory_budget, or the role's temp_file_limit (docs/sources.md)"
    )
    assert run_cli(["check"], environ) == 1
    out, err = capsys.readouterr()
    assert out == "", out
    assert f"sutura: settings: sources.main: {problem}" in err.split("\n"), err
    assert run_cli(["doctor"], environ) == 1
    out, _ = capsys.readouterr()
    assert f"  main (postgres): NOT usable: {problem}" in out.split("\n")
    code = run_cli(["doctor"], Wiring(_environ(stock)))
    out, _ = capsys.readouterr()
    assert code == 0 and "  main (postgres): reachable" in out.split("\n")
