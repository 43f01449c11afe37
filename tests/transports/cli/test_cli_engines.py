"""The command line on PostgreSQL and on Spark, as a user runs it: the ``sutura`` console script
in a subprocess, its settings in ``SUTURA_CONFIG_DIR`` and the reader's password in the
environment it is given (``password_env``).

Each command opens, uses and closes its service in one event loop. These are the regression
tests for a command line that opened the service in one event loop and used it in another:
every PostgreSQL ``query`` and ``check`` then said "internal error". The example's data is
copied to a scratch PostgreSQL database and loaded into the Spark test server; every answer is
compared, byte for byte, with the same command on DuckDB over the same rows.
"""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

import pytest

from sutura.boundary.example import CATALOG, DATABASE, write_example
from tests.clock import unclocked
from tests.conformance.conftest import ORDERS
from tests.conformance.pack import add_pack_rows
from tests.postgres import copy_from_duckdb, scratch_database
from tests.spark_server import load_tables, require_server

SCRIPT: Final = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
PASSWORD_VAR: Final = "SUTURA_CLI_TEST_PASSWORD"
INTERNAL: Final = "internal error"
TIMEOUT_SECONDS: Final = 180
QUARTERLY: Final = [
    "query",
    "revenue",
    "order_count",
    "--grain",
    "quarter",
    "--from",
    "2024-01-01",
    "--to",
    "2025-01-01",
    "--by",
    "region",
]
UNKNOWN: Final = [
    "query",
    "payroll",
    "--grain",
    "year",
    "--from",
    "2024-01-01",
    "--to",
    "2025-01-01",
]
RAW: Final = (
    "SELECT sales_region AS region, count(*) AS orders, sum(amount) AS charged"
    " FROM orders JOIN customers USING (customer_id) GROUP BY 1 ORDER BY 1"
)


class Deployed(NamedTuple):
    """A deployment on an engine, and the same catalog and rows on DuckDB."""

    config: Path
    environ: dict[str, str]
    duckdb: Path


class Ran(NamedTuple):
    """What a command did."""

    code: int
    out: str
    err: str


def _settings(directory: Path, catalog: Path, source: dict[str, Any], *, run_sql: bool) -> Path:
    directory.mkdir()
    document: dict[str, Any] = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    if run_sql:
        document["tools"] = {"run_sql": {"enabled": True, "source": "main"}}
    (directory / "base.yaml").write_text(json.dumps(document, indent=2), encoding="utf-8")
    return directory


def sutura(config: Path, *args: str, **environ: str) -> Ran:
    """``sutura ARGS`` as a user runs it: this process's environment without any ``SUTURA``
    setting, plus the config dir and ``environ``."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SUTURA")}
    done = subprocess.run(
        [*SCRIPT, *args],
        env={**base, "SUTURA_CONFIG_DIR": str(config), **environ},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def _same_as_duckdb(deployed: Deployed, *args: str) -> Ran:
    """``args`` on the engine, checked to print exactly what DuckDB prints over the same rows."""
    ran = sutura(deployed.config, *args, **deployed.environ)
    assert INTERNAL not in ran.err, ran.err
    duckdb = sutura(deployed.duckdb, *args)  # another process: another computed_at
    assert ran._replace(out=unclocked(ran.out)) == duckdb._replace(out=unclocked(duckdb.out))
    return ran


@pytest.fixture(scope="module")
def on_postgres(
    example_dir: Path, postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployed]:
    """The session's example in a scratch PostgreSQL database, ``run_sql`` on."""
    root = tmp_path_factory.mktemp("cli-postgres")
    catalog = example_dir / CATALOG
    with scratch_database(postgres_dsn) as scratch:
        copy_from_duckdb(example_dir / DATABASE, scratch, root)
        source = scratch.source_settings(PASSWORD_VAR, pool_size=2)
        yield Deployed(
            config=_settings(root / "postgres", catalog, source, run_sql=True),
            environ={PASSWORD_VAR: scratch.reader_password},
            duckdb=_settings(
                root / "duckdb",
                catalog,
                {"kind": "duckdb", "path": str(example_dir / DATABASE)},
                run_sql=True,
            ),
        )


@pytest.fixture(scope="module")
def on_spark(tmp_path_factory: pytest.TempPathFactory) -> Deployed:
    """The conformance pack's example rows (already loaded when the pack ran first) in the
    Spark test server."""
    remote = require_server()
    root = tmp_path_factory.mktemp("cli-spark")
    write_example(root / "example", orders=ORDERS)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    load_tables(database, remote)
    catalog = root / "example" / CATALOG
    return Deployed(
        config=_settings(
            root / "spark", catalog, {"kind": "spark", "remote": remote}, run_sql=False
        ),
        environ={},
        duckdb=_settings(
            root / "duckdb", catalog, {"kind": "duckdb", "path": str(database)}, run_sql=False
        ),
    )


@pytest.mark.postgres
def test_check_on_postgres_opens_the_source_and_reproduces_every_anchor(
    on_postgres: Deployed,
) -> None:
    ran = sutura(on_postgres.config, "check", **on_postgres.environ)
    assert (ran.code, ran.err) == (0, ""), ran.err
    assert "sources: main (postgres)" in ran.out.splitlines()
    assert "anchors: 2 reproduced" in ran.out.splitlines()


@pytest.mark.postgres
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_query_on_postgres_answers_what_duckdb_answers(
    on_postgres: Deployed, json_flag: list[str]
) -> None:
    ran = _same_as_duckdb(on_postgres, *QUARTERLY, *json_flag)
    assert (ran.code, ran.err) == (0, "")
    if json_flag:
        assert json.loads(ran.out)["outcome"] == "answer"
    else:
        assert ran.out.startswith("period\tregion\trevenue\torder_count\n")
        assert "\\. rows: 16\n" in ran.out


@pytest.mark.postgres
def test_a_refusal_on_postgres_is_exit_code_one_on_stdout(on_postgres: Deployed) -> None:
    ran = _same_as_duckdb(on_postgres, *UNKNOWN)
    assert (ran.code, ran.err) == (1, "")
    assert ran.out.startswith("refused (metric_unknown): ")


@pytest.mark.postgres
def test_sql_on_postgres_reads_the_rows_duckdb_reads(on_postgres: Deployed) -> None:
    ran = _same_as_duckdb(on_postgres, "sql", RAW)
    assert (ran.code, ran.err) == (0, "")
    assert "region\torders\tcharged" in ran.out.splitlines()


@pytest.mark.postgres
def test_a_statement_postgres_refuses_comes_back_in_its_words_with_exit_code_one(
    on_postgres: Deployed,
) -> None:
    ran = sutura(on_postgres.config, "sql", "SELECT * FROM no_such_table", **on_postgres.environ)
    assert (ran.code, ran.err) == (1, "")
    assert "refused (statement_failed): " in ran.out
    assert '> relation "no_such_table" does not exist' in ran.out.splitlines()


@pytest.mark.postgres
def test_describe_on_postgres_shows_the_pinned_definition(on_postgres: Deployed) -> None:
    ran = _same_as_duckdb(on_postgres, "describe", "revenue")
    assert (ran.code, ran.err) == (0, "")
    assert "revenue" in ran.out


@pytest.mark.postgres
def test_the_password_comes_from_the_environment_the_command_is_given(
    on_postgres: Deployed,
) -> None:
    ran = sutura(on_postgres.config, *QUARTERLY)
    assert (ran.code, ran.out) == (1, "")
    assert ran.err.startswith("sutura: "), ran.err
    assert PASSWORD_VAR in ran.err and INTERNAL not in ran.err


@pytest.mark.spark
def test_check_on_spark_opens_the_source_and_reproduces_every_anchor(on_spark: Deployed) -> None:
    ran = sutura(on_spark.config, "check")
    assert ran.code == 0 and INTERNAL not in ran.err, ran.err
    assert "sources: main (spark)" in ran.out.splitlines()
    assert "anchors: 2 reproduced" in ran.out.splitlines()


@pytest.mark.spark
def test_query_on_spark_answers_what_duckdb_answers(on_spark: Deployed) -> None:
    ran = sutura(on_spark.config, *QUARTERLY)
    assert ran.code == 0 and INTERNAL not in ran.err, ran.err
    assert unclocked(ran.out) == unclocked(sutura(on_spark.duckdb, *QUARTERLY).out)
    assert ran.out.startswith("period\tregion\trevenue\torder_count\n")


@pytest.mark.spark
def test_more_rows_than_the_limit_on_spark_is_a_refusal_on_stdout(on_spark: Deployed) -> None:
    ran = sutura(on_spark.config, *QUARTERLY, "--json", SUTURA__LIMITS__MAX_ROWS="3")
    assert ran.code == 1 and INTERNAL not in ran.err, ran.err
    assert json.loads(ran.out)["reason"]["code"] == "result_too_large"


@pytest.mark.spark
def test_describe_on_spark_shows_the_pinned_definition(on_spark: Deployed) -> None:
    ran = sutura(on_spark.config, "describe", "revenue")
    assert ran == sutura(on_spark.duckdb, "describe", "revenue")
    assert ran.code == 0


@pytest.mark.spark
def test_sql_on_spark_is_refused_at_startup_naming_the_setting(on_spark: Deployed) -> None:
    ran = sutura(
        on_spark.config,
        "sql",
        RAW,
        SUTURA__TOOLS__RUN_SQL__ENABLED="true",
        SUTURA__TOOLS__RUN_SQL__SOURCE="main",
    )
    assert (ran.code, ran.out) == (1, "")
    assert "sutura: settings: tools.run_sql.source: run_sql reads duckdb and postgres" in ran.err
