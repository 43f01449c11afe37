"""``sutura import dbt`` through the command line, on the jaffle shop's semantic manifest (as
`dbt parse` writes it) over its relations in DuckDB and in PostgreSQL: the documents are
written, what was not carried over is printed and reported with its file, the catalog passes
`sutura check`, and a second import after the dbt project changed updates what was not edited
and never overwrites what was. The answers against MetricFlow's are
tests/workloads/test_dbt_import.py."""

import json
import secrets
import shutil
from pathlib import Path

import duckdb
import psycopg
import pytest
from psycopg import sql

from tests.postgres import scratch_database
from tests.transports.cli.running import run_in_process as _run
from tests.workloads.jaffle_sl import MANIFEST, RELATIONS

SECURITY = "security:\n  identity: single-user\n  single_user_because: one analyst imports\n"


def _project(tmp_path: Path, edit: dict[str, str] | None = None) -> Path:
    """A dbt project directory holding only what the import reads: target/*.json."""
    project = tmp_path / "jaffle"
    (project / "target").mkdir(parents=True, exist_ok=True)
    text = MANIFEST.read_text(encoding="utf-8")
    for old, new in (edit or {}).items():
        assert old in text
        text = text.replace(old, new)
    (project / "target" / "semantic_manifest.json").write_text(text, encoding="utf-8")
    files = {
        "metrics": {
            "metric.jaffle_shop.orders": {
                "name": "orders",
                "original_file_path": "models/marts/customer360/orders.yml",
            }
        },
        "semantic_models": {},
    }
    (project / "target" / "manifest.json").write_text(json.dumps(files), encoding="utf-8")
    return project


def _duckdb(tmp_path: Path) -> Path:
    config = tmp_path / "shop"
    config.mkdir()
    with duckdb.connect(str(config / "jaffle.duckdb")) as connection:
        for relation, spec in RELATIONS.items():
            connection.execute(f"CREATE TABLE {relation} ({spec})")
    (config / "base.yaml").write_text(
        "sources:\n  jaffle:\n    kind: duckdb\n    path: jaffle.duckdb\n" + SECURITY,
        encoding="utf-8",
    )
    return config


def _imports_checks_and_reimports(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], schema: str = "main"
) -> None:
    """Import, check, edit one document, change the dbt project, import again, check; the
    relations are in ``schema`` (the manifest's is ``main``)."""
    moved = {'"schema_name": "main"': f'"schema_name": "{schema}"'} if schema != "main" else {}
    code, out, err = _run(["import", "dbt", str(_project(tmp_path, moved))], config, capsys)
    assert (code, err) == (0, "")
    assert "import dbt: 21 written, 0 updated, 0 unchanged, 0 removed under" in out
    assert (
        "carried over: 5 of 5 semantic models, 7 of 15 measures, 20 of 20 dimensions,"
        " 12 of 18 metrics" in out
    )
    assert "  target/semantic_manifest.json: metric cumulative_revenue: a cumulative metric" in out
    assert "  models/marts/customer360/orders.yml: metric orders_last_7_days" not in out
    catalog = config / "catalog"
    report = (catalog / "import-dbt-report.txt").read_text(encoding="utf-8")
    assert "metrics: 12 of 18\n" in report and "not carried over: 15\n" in report
    assert "approximate percentile" in report
    assert "dimensions: 20 of 20 (shared dimensions, each declared on its model)\n" in report
    assert "semi-additive measures: 0 of 0 (non_additive_dimension" in report
    customers = (catalog / "models" / "customers.md").read_text(encoding="utf-8")
    assert "  - {name: customer__customer_type, column: customer_type}\n" in customers
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out
    assert "catalog: 12 metrics (1 derived), 5 models, 4 relationships" in out

    # The author edits one document; the dbt project changes two filters.
    edited = catalog / "metrics" / "food_orders.md"
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("Food Orders.", "Orders with food."),
        encoding="utf-8",
    )
    changed = _project(
        tmp_path,
        {
            **moved,
            "order_total_dim') }} >= 20": "order_total_dim') }} >= 30",
            "is_food_order') }} = true": "is_food_order') }} = false",
            '"name": "food_revenue_pct"': '"name": "food_share"',
        },
    )
    code, out, err = _run(["import", "dbt", str(changed)], config, capsys)
    assert (code, err) == (0, "")
    assert "1 written, 1 updated, 18 unchanged, 1 removed" in out
    assert "  wrote   metrics/food_share.md" in out
    assert "  removed metrics/food_revenue_pct.md (gone from the dbt project)" in out
    assert "  updated metrics/large_order.md (the dbt project changed)" in out
    assert "  kept    metrics/food_orders.md (you edited it)" in out
    assert "  offered metrics/food_orders.md.draft" in out
    assert (
        '  metrics/large_order.md: + - {at_least: [{column: order_total}, {number: "30"}]}' in out
    )
    assert "Orders with food." in edited.read_text(encoding="utf-8")
    assert '{boolean: "false"}' in (catalog / "metrics" / "food_orders.md.draft").read_text(
        encoding="utf-8"
    )
    code, out, err = _run(["check"], config, capsys)
    assert (code, err) == (0, ""), out


def test_import_dbt_over_duckdb(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _imports_checks_and_reimports(_duckdb(tmp_path), tmp_path, capsys)


def test_import_dbt_over_a_parquet_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "shop"
    (config / "files").mkdir(parents=True)
    with duckdb.connect() as connection:
        for relation, spec in RELATIONS.items():
            connection.execute(f"CREATE TABLE {relation} ({spec})")
            target = config / "files" / f"{relation}.parquet"
            connection.execute(f"COPY {relation} TO '{target}' (FORMAT parquet)")
    (config / "base.yaml").write_text(
        "sources:\n  jaffle:\n    kind: duckdb\n    path: files\n" + SECURITY,
        encoding="utf-8",
    )
    _imports_checks_and_reimports(config, tmp_path, capsys)


@pytest.mark.postgres
def test_import_dbt_over_postgres(
    tmp_path: Path, postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with scratch_database(postgres_dsn) as scratch:
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            admin.execute("CREATE SCHEMA main")  # the schema the manifest's relations name
            for relation, spec in RELATIONS.items():
                typed = spec.replace("DOUBLE", "DOUBLE PRECISION")
                admin.execute(f"CREATE TABLE main.{relation} ({typed})")
            reader = sql.Identifier(scratch.reader)
            admin.execute(sql.SQL("GRANT USAGE ON SCHEMA main TO {}").format(reader))
            admin.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA main TO {}").format(reader))
        config = tmp_path / "shop"
        config.mkdir()
        (config / "password").write_text(scratch.reader_password, encoding="utf-8")
        (config / "base.yaml").write_text(
            "sources:\n  jaffle:\n    kind: postgres\n"
            f"    host: {scratch.host}\n    port: {scratch.port}\n"
            f"    database: {scratch.database}\n    user: {scratch.reader}\n"
            "    password_file: password\n" + SECURITY,
            encoding="utf-8",
        )
        _imports_checks_and_reimports(config, tmp_path, capsys)


@pytest.mark.spark
def test_import_dbt_over_spark(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.spark_server import require_server, session

    remote = require_server()
    database = f"jaffle_{secrets.token_hex(4)}"  # the server is shared: a database of our own
    spark = session(remote)
    spark.sql(f"CREATE DATABASE {database}").collect()
    try:
        for relation, spec in RELATIONS.items():
            typed = spec.replace("VARCHAR", "STRING").replace("INTEGER", "INT")
            spark.sql(f"CREATE TABLE {database}.{relation} ({typed}) USING parquet").collect()
        config = tmp_path / "shop"
        config.mkdir()
        (config / "base.yaml").write_text(
            f"sources:\n  jaffle:\n    kind: spark\n    remote: {remote}\n" + SECURITY,
            encoding="utf-8",
        )
        _imports_checks_and_reimports(config, tmp_path, capsys, schema=database)
    finally:
        spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE").collect()


def test_import_dbt_says_what_to_run_when_the_project_was_not_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _duckdb(tmp_path)
    project = tmp_path / "unparsed"
    shutil.copytree(MANIFEST.parent / "project" / "models", project / "models")
    code, _out, err = _run(["import", "dbt", str(project)], config, capsys)
    assert code == 1
    assert (
        "unparsed/target/semantic_manifest.json: no such file; run `dbt parse` in the project first"
        in err
    )
