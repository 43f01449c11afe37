"""Table names holding dots (and quotes), through ``sutura init``, ``check``, ``compile`` and
``query`` on DuckDB, PostgreSQL and Spark: a dot in a name is part of it, so the table
``main.victim`` is drafted, checked, compiled and read as itself — never as the table
``victim`` of the schema ``main`` — and a table named ``..`` is drafted like any other."""

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb
import psycopg
import pytest
from psycopg import sql

from tests.postgres import scratch_database
from tests.transports.cli.running import run_in_process as _run

SECURITY: Final = (
    "security:\n  identity: single-user\n  single_user_because: one analyst drafts a catalog\n"
)
DOTTED: Final = "main.victim"
"""A table of the default schema whose name spells another table's path."""
DOTS: Final = ".."
QUOTED: Final = 'q"uo.te'
YAML_WORDS: Final = ("null", "true", "on")
"""Tables whose names YAML would read as something other than text."""
DAYS: Final = ("2024-01-02", "2024-01-03", "2024-02-01")
"""The dotted tables' rows (``victim`` has none of them, and other columns)."""
MONTHS: Final = ["--grain", "month", "--from", "2024-01-01", "--to", "2024-03-01"]


@dataclass(frozen=True)
class Drafted:
    """What init drafted from a source holding the hostile names."""

    config: Path
    models: dict[str, str]
    out: str


def _drafted(config: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> Drafted:
    code, out, err = _run(["init", *argv], config, capsys)
    assert (code, err) == (0, ""), out
    models = {p.stem: p.read_text("utf-8") for p in (config / "catalog/models").glob("*.md")}
    return Drafted(config, models, out)


def _rows(out: str) -> list[list[str]]:
    lines = out.split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("\\. rows: "))
    return [line.split("\t") for line in lines[:end]]


def _assert_read_as_themselves(drafted: Drafted, capsys: pytest.CaptureFixture[str]) -> None:
    """Each dotted table is its own model, with its own columns; check passes; the compiled
    statement (DuckDB's or PostgreSQL's) names it as one identifier; the question counts its
    rows."""
    victim = drafted.models["main_victim"]
    assert 'table: "main.victim"\n' in victim
    assert "  - name: happened_on\n" in victim and "name: a\n" not in victim
    assert 'table: ".."\n' in drafted.models["table"]
    assert 'table: "q\\"uo.te"\n' in drafted.models["q_uo_te"]
    code, out, err = _run(["check"], drafted.config, capsys)
    assert (code, err) == (0, ""), out
    for model, table in [("main_victim", DOTTED), ("table", DOTS), ("q_uo_te", QUOTED)]:
        code, out, err = _run(["compile", f"{model}_count", *MONTHS], drafted.config, capsys)
        assert (code, err) == (0, "")
        spelled = table.replace('"', '""')
        assert f'FROM "{spelled}" AS' in out, out
        code, out, err = _run(["query", f"{model}_count", *MONTHS], drafted.config, capsys)
        assert (code, err) == (0, "")
        assert _rows(out)[1:] == [["2024-01-01", "2"], ["2024-02-01", "1"]]


def test_init_check_compile_and_query_read_dotted_names_as_themselves_on_duckdb(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with duckdb.connect(str(tmp_path / "shop.duckdb")) as connection:
        connection.execute("CREATE TABLE victim (a INTEGER, b VARCHAR)")
        connection.execute("INSERT INTO victim VALUES (1, 'not this table')")
        for table in (DOTTED, DOTS, QUOTED, *YAML_WORDS):
            name = table.replace('"', '""')
            connection.execute(f'CREATE TABLE "{name}" (id INTEGER, happened_on DATE)')
            for i, day in enumerate(DAYS):
                connection.execute(f'INSERT INTO "{name}" VALUES (?, ?)', [i, day])
    (tmp_path / "base.yaml").write_text(
        "sources:\n  shop:\n    kind: duckdb\n    path: shop.duckdb\n" + SECURITY, "utf-8"
    )
    drafted = _drafted(tmp_path, capsys)
    for word in YAML_WORDS:  # a model named null is written "null", not YAML's null
        assert f'name: "{word}"\n' in drafted.models[word]
    _assert_read_as_themselves(drafted, capsys)


@pytest.fixture
def postgres_config(tmp_path: Path, postgres_dsn: str) -> Iterator[Path]:
    """A scratch database: the schema ``main`` with a table ``victim``, and in ``public`` the
    tables ``main.victim``, ``..`` and ``q"uo.te``, which the reader may read, and ``private``,
    which it may not."""
    with scratch_database(postgres_dsn) as scratch:
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            reader = sql.Identifier(scratch.reader)
            admin.execute("CREATE SCHEMA main")
            admin.execute("CREATE TABLE main.victim (a integer, b text)")
            admin.execute("INSERT INTO main.victim VALUES (1, 'not this table')")
            admin.execute(sql.SQL("GRANT USAGE ON SCHEMA main TO {}").format(reader))
            admin.execute(sql.SQL("GRANT SELECT ON main.victim TO {}").format(reader))
            admin.execute("CREATE TABLE private (id integer)")  # the reader may not read it
            for table in (DOTTED, DOTS, QUOTED):
                name = sql.Identifier(table)
                admin.execute(
                    sql.SQL("CREATE TABLE {} (id integer, happened_on date)").format(name)
                )
                for i, day in enumerate(DAYS):
                    admin.execute(sql.SQL("INSERT INTO {} VALUES (%s, %s)").format(name), [i, day])
                admin.execute(sql.SQL("GRANT SELECT ON {} TO {}").format(name, reader))
        (tmp_path / "password").write_text(scratch.reader_password, encoding="utf-8")
        (tmp_path / "base.yaml").write_text(
            "sources:\n  warehouse:\n    kind: postgres\n"
            f"    host: {scratch.host}\n    port: {scratch.port}\n"
            f"    database: {scratch.database}\n    user: {scratch.reader}\n"
            "    password_file: password\n" + SECURITY,
            encoding="utf-8",
        )
        yield tmp_path


@pytest.mark.postgres
def test_init_check_compile_and_query_read_dotted_names_as_themselves_on_postgres(
    postgres_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drafted = _drafted(postgres_config, capsys)
    assert sorted(drafted.models) == ["main_victim", "q_uo_te", "table"]
    note = "table 'private': the source would not describe it to this role (a missing grant?)"
    assert note in drafted.out
    _assert_read_as_themselves(drafted, capsys)


@pytest.mark.postgres
def test_init_of_a_schema_whose_name_holds_a_dot_writes_the_path_as_two_names(
    postgres_config: Path, postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    del postgres_dsn
    drafted = _drafted(postgres_config, capsys, "--schema", "main")
    assert "table: [main, victim]\n" in drafted.models["victim"]
    code, out, err = _run(["check"], postgres_config, capsys)
    assert (code, err) == (0, ""), out


@pytest.mark.spark
def test_init_check_compile_and_query_read_dotted_names_as_themselves_on_spark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Spark's own catalog takes only letters, digits and ``_`` in a table's name; its global
    temporary views (in the database ``global_temp``) take any name, and every session sees
    them: sutura's too."""
    from tests.spark_server import require_server, session

    remote = require_server()
    spark = session(remote)
    suffix = secrets.token_hex(4)  # the server is shared: names of our own
    victim = f"victim_{suffix}"
    views = (f"main.{victim}", f"..{suffix}")
    rows = ", ".join(f"({i}, DATE'{d}')" for i, d in enumerate(DAYS))
    try:
        spark.sql("CREATE DATABASE IF NOT EXISTS main").collect()
        spark.sql(f"CREATE TABLE main.{victim} USING parquet AS SELECT 1 AS a, 'b' AS b").collect()
        for view in views:
            spark.sql(
                f"CREATE GLOBAL TEMP VIEW `{view}` AS SELECT * FROM VALUES {rows}"
                " AS t(id, happened_on)"
            ).collect()
        (tmp_path / "base.yaml").write_text(
            f"sources:\n  spark:\n    kind: spark\n    remote: {remote}\n" + SECURITY, "utf-8"
        )
        argv = ["--schema", "global_temp", *(a for view in views for a in ("--table", view))]
        drafted = _drafted(tmp_path, capsys, *argv)
        models = {
            view: next(m for m, text in drafted.models.items() if f'"{view}"]' in text)
            for view in views
        }
        assert f'table: [global_temp, "main.{victim}"]\n' in drafted.models[models[views[0]]]
        assert "name: a\n" not in drafted.models[models[views[0]]]
        code, out, err = _run(["check"], tmp_path, capsys)
        assert (code, err) == (0, ""), out
        for view, model in models.items():
            code, out, err = _run(["compile", f"{model}_count", *MONTHS], tmp_path, capsys)
            assert (code, err) == (0, "")
            assert f"FROM `global_temp`.`{view}` AS" in out, out
            code, out, err = _run(["query", f"{model}_count", *MONTHS], tmp_path, capsys)
            assert (code, err) == (0, "")
            assert _rows(out)[1:] == [["2024-01-01", "2"], ["2024-02-01", "1"]]
    finally:
        for view in views:
            spark.sql(f"DROP VIEW IF EXISTS global_temp.`{view}`").collect()
        spark.sql(f"DROP TABLE IF EXISTS main.{victim}").collect()
