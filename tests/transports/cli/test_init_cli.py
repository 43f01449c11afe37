"""``sutura init`` through the command line: a PostgreSQL schema and a Parquet directory the
tests create, drafted, checked and asked — never the example."""

import secrets
from collections.abc import Callable
from pathlib import Path

import duckdb
import psycopg
import pytest
from psycopg import sql

from sutura.boundary.schema_files import shipped_text
from tests.postgres import Scratch, scratch_database
from tests.transports.cli.running import run_in_process as _run

# What every settings file with a source says about who calls it.
SECURITY = (
    "security:\n  identity: single-user\n  single_user_because: one analyst drafts a catalog\n"
)


def _answer_rows(out: str) -> list[list[str]]:
    """The rows of a text half, header first, up to its row count line."""
    lines = out.split("\n")
    end = next(i for i, line in enumerate(lines) if line.startswith("\\. rows: "))
    return [line.split("\t") for line in lines[:end]]


# Orders placed per month, and the rows that say so (three in January, one in March).
_ORDERS = [
    (1, 1, "10.50", "2024-01-03 10:00:00+00", "shipped"),
    (2, 2, "3.25", "2024-01-05 11:00:00+00", "placed"),
    (3, 1, "7.00", "2024-01-31 23:00:00+00", "placed"),
    (4, 2, "1.00", "2024-03-02 08:00:00+00", "cancelled"),
]


def _sales_schema(scratch: Scratch) -> None:
    """A ``sales`` schema: customers, orders (a foreign key onto customers), and order lines
    with a primary key of two columns; the reader may read them."""
    with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
        admin.execute("CREATE SCHEMA sales")
        admin.execute(
            "CREATE TABLE sales.customers (id integer PRIMARY KEY, name text, joined date)"
        )
        admin.execute(
            "CREATE TABLE sales.orders (order_id bigint PRIMARY KEY,"
            " customer_id integer NOT NULL REFERENCES sales.customers (id),"
            " amount numeric(12,2), placed_at timestamptz, status text)"
        )
        admin.execute(
            "CREATE TABLE sales.order_lines (order_id bigint REFERENCES sales.orders,"
            " line_no integer, qty integer, PRIMARY KEY (order_id, line_no))"
        )
        admin.execute(
            "INSERT INTO sales.customers VALUES (1, 'Ann', '2023-05-01'), (2, 'Bo', '2023-06-01')"
        )
        with admin.cursor() as cursor:
            cursor.executemany("INSERT INTO sales.orders VALUES (%s, %s, %s, %s, %s)", _ORDERS)
        reader = sql.Identifier(scratch.reader)
        admin.execute(sql.SQL("GRANT USAGE ON SCHEMA sales TO {}").format(reader))
        admin.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA sales TO {}").format(reader))


@pytest.mark.postgres
def test_init_drafts_a_postgres_schema_that_checks_and_answers(
    tmp_path: Path, postgres_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with scratch_database(postgres_dsn) as scratch:
        _sales_schema(scratch)
        (tmp_path / "password").write_text(scratch.reader_password, encoding="utf-8")
        (tmp_path / "base.yaml").write_text(
            "sources:\n  warehouse:\n    kind: postgres\n"
            f"    host: {scratch.host}\n    port: {scratch.port}\n"
            f"    database: {scratch.database}\n    user: {scratch.reader}\n"
            "    password_file: password\n" + SECURITY,
            encoding="utf-8",
        )
        code, out, err = _run(["init", "--schema", "sales"], tmp_path, capsys)
        assert (code, err) == (0, "")
        catalog = tmp_path / "catalog"
        written = sorted(str(p.relative_to(catalog)) for p in catalog.rglob("*.md"))
        assert written == [
            "metrics/customers_count.md",
            "metrics/orders_count.md",
            "models/customers.md",
            "models/order_lines.md",
            "models/orders.md",
            "relationships/order_lines_orders.md",
            "relationships/orders_customers.md",
        ]
        assert "review next:" in out and "metrics/orders_count.md: a DRAFT metric" in out
        assert "model order_lines: the primary key has several columns" in out
        assert out.rstrip().endswith(f"next: SUTURA_CONFIG_DIR={tmp_path} sutura check")
        orders = (catalog / "models/orders.md").read_text(encoding="utf-8")
        assert "table: [sales, orders]\nprimary_key: order_id\n" in orders
        for column, kind in [
            ("order_id", "bigint"),
            ("customer_id", "integer"),
            ("amount", '"numeric(12,2)"'),
            ("placed_at", "timestamptz"),
            ("status", "text"),
        ]:
            assert f"  - name: {column}\n    type: {kind}\n" in orders, orders
        relationship = (catalog / "relationships/orders_customers.md").read_text(encoding="utf-8")
        assert "origin: customer_id\n      target: id\njoin_type: many_to_one\n" in relationship
        # order_lines references orders' whole key (one column): drafted; it has no time column.
        assert "model order_lines: no date or timestamp column" in out

        code, out, err = _run(["check"], tmp_path, capsys)
        assert (code, err) == (0, "")
        assert "catalog: 2 metrics, 3 models, 2 relationships" in out

        month = ["--grain", "month", "--from", "2024-01-01", "--to", "2024-04-01"]
        code, out, err = _run(["query", "orders_count", *month], tmp_path, capsys)
        assert (code, err) == (0, "")
        expected: dict[str, int] = {}
        for _, _, _, placed, _ in _ORDERS:
            expected[placed[:7] + "-01"] = expected.get(placed[:7] + "-01", 0) + 1
        assert _answer_rows(out) == [
            ["period", "orders_count"],
            *([period, str(n)] for period, n in sorted(expected.items())),
        ]


def _events_directory(directory: Path) -> list[str]:
    """Two Parquet files and a CSV file; the days the events happened on."""
    directory.mkdir()
    days = ["2024-02-01", "2024-02-01", "2024-02-03", "2024-05-09", "2024-05-10"]
    with duckdb.connect() as connection:
        values = ", ".join(
            f"({i}, DATE '{d}', {i * 1.5}::DECIMAL(8,2))" for i, d in enumerate(days)
        )
        connection.execute(
            f"COPY (SELECT * FROM (VALUES {values}) AS t(event_id, happened_on, weight))"
            f" TO '{directory / 'events.parquet'}' (FORMAT parquet)"
        )
        connection.execute(
            "COPY (SELECT 'web' AS channel, 1 AS n)"
            f" TO '{directory / 'channels.parquet'}' (FORMAT parquet)"
        )
    (directory / "notes.csv").write_text("id,said\n1,hello\n", encoding="utf-8")
    return days


def test_init_drafts_named_tables_of_a_parquet_directory_that_checks_and_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    days = _events_directory(tmp_path / "files")
    (tmp_path / "base.yaml").write_text(
        "catalog:\n  dir: defs\nsources:\n  lake:\n    kind: duckdb\n    path: files\n" + SECURITY,
        encoding="utf-8",
    )
    code, out, err = _run(["init", "--table", "events", "--table", "notes"], tmp_path, capsys)
    assert (code, err) == (0, "")
    written = sorted(str(p.relative_to(tmp_path / "defs")) for p in tmp_path.rglob("*.md"))
    assert written == ["metrics/events_count.md", "models/events.md", "models/notes.md"]
    events = (tmp_path / "defs/models/events.md").read_text(encoding="utf-8")
    assert "source: lake\ntable: events\ncolumns:\n" in events  # Parquet declares no key
    assert '  - name: weight\n    type: "DECIMAL(8,2)"\n' in events
    assert "model notes: no date or timestamp column, so no draft metric" in out
    # Each draft points editors at the schema copy init wrote beside the settings.
    assert events.split("\n---\n")[0].endswith(
        "\n# yaml-language-server: $schema=../../schemas/catalog.schema.json"
    )
    assert (tmp_path / "schemas/catalog.schema.json").read_text("utf-8") == shipped_text("catalog")

    code, out, err = _run(["check"], tmp_path, capsys)
    assert (code, err) == (0, "")
    year = ["--grain", "month", "--from", "2024-01-01", "--to", "2025-01-01"]
    code, out, err = _run(["query", "events_count", *year], tmp_path, capsys)
    assert (code, err) == (0, "")
    months = sorted({d[:7] for d in days})
    assert _answer_rows(out)[1:] == [
        [f"{m}-01", str(sum(d.startswith(m) for d in days))] for m in months
    ]

    # Nothing is overwritten: an edited model survives a second init, which says it kept it.
    edited = events.replace("(Drafted by sutura init: describe it.)", "One row per event.")
    (tmp_path / "defs/models/events.md").write_text(edited, encoding="utf-8")
    code, out, err = _run(["init"], tmp_path, capsys)
    assert (code, err) == (0, "")
    assert "  kept  models/events.md (it exists; nothing was overwritten)" in out
    assert "  wrote models/channels.md" in out
    assert (tmp_path / "defs/models/events.md").read_text(encoding="utf-8") == edited


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        (["--table", "evnts"], "sutura: init: --table 'evnts': the source lake has no such table"),
        (
            ["--schema", "sales"],
            "sutura: init: --schema applies to postgres and spark sources; lake is duckdb",
        ),
        (["--source", "main"], "sutura: init: --source 'main': no such source (configured: lake)"),
    ],
)
def test_init_names_what_it_cannot_draft_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], problem: str
) -> None:
    _events_directory(tmp_path / "files")
    (tmp_path / "base.yaml").write_text(
        "sources:\n  lake:\n    kind: duckdb\n    path: files\n" + SECURITY, encoding="utf-8"
    )
    code, out, err = _run(["init", *argv], tmp_path, capsys)
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == problem
    assert not (tmp_path / "catalog").exists()


@pytest.mark.spark
def test_init_drafts_a_spark_table_that_checks_and_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.spark_server import require_server, session

    remote = require_server()
    table = f"init_visits_{secrets.token_hex(4)}"  # the server is shared: a table of our own
    days = ["2024-03-01", "2024-03-02", "2024-07-04"]
    spark = session(remote)
    spark.sql(
        f"CREATE TABLE {table} USING parquet AS SELECT * FROM VALUES "
        + ", ".join(f"({i}, DATE'{d}', CAST({i}.25 AS DECIMAL(6,2)))" for i, d in enumerate(days))
        + " AS t(visit_id, visited_on, spent)"
    ).collect()
    try:
        (tmp_path / "base.yaml").write_text(
            f"sources:\n  spark:\n    kind: spark\n    remote: {remote}\n" + SECURITY,
            encoding="utf-8",
        )
        code, out, err = _run(["init", "--table", table], tmp_path, capsys)
        assert (code, err) == (0, "")
        model = (tmp_path / f"catalog/models/{table}.md").read_text(encoding="utf-8")
        assert '  - name: spent\n    type: "decimal(6,2)"\n' in model
        code, out, err = _run(["check"], tmp_path, capsys)
        assert (code, err) == (0, "")
        year = ["--grain", "year", "--from", "2024-01-01", "--to", "2025-01-01"]
        code, out, err = _run(["query", f"{table}_count", *year], tmp_path, capsys)
        assert (code, err) == (0, "")
        assert _answer_rows(out) == [["period", f"{table}_count"], ["2024-01-01", str(len(days))]]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}").collect()


def test_init_drafts_a_duckdb_file_with_keys_and_untrusted_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Keys become a primary key and a relationship; a table name that is no model name gets
    a spelling of it; a column name with a bidi control is left out, said so, never written."""
    with duckdb.connect(str(tmp_path / "shop.duckdb")) as connection:
        connection.execute("CREATE TABLE shops (shop_id INTEGER PRIMARY KEY, city VARCHAR)")
        connection.execute(
            'CREATE TABLE "Sale Lines" (line_id BIGINT PRIMARY KEY,'
            " shop_id INTEGER REFERENCES shops (shop_id), sold_at TIMESTAMP,"
            f' "note{chr(0x202E)}x" VARCHAR, "yes" BOOLEAN)'
        )
        connection.execute("INSERT INTO shops VALUES (1, 'Lyon'), (2, 'Oslo')")
        connection.execute(
            "INSERT INTO \"Sale Lines\" VALUES (1, 1, '2024-05-01 10:00', 'a', true),"
            " (2, 2, '2024-05-02 11:00', NULL, false), (3, 1, '2024-06-01 09:00', 'b', NULL)"
        )
    (tmp_path / "base.yaml").write_text(
        "sources:\n  shop:\n    kind: duckdb\n    path: shop.duckdb\n" + SECURITY,
        encoding="utf-8",
    )
    code, out, err = _run(["init"], tmp_path, capsys)
    assert (code, err) == (0, "")
    assert "model sale_lines: named for the table 'Sale Lines'" in out
    assert "table 'Sale Lines': 1 column(s) with unusable names left out" in out
    lines = (tmp_path / "catalog/models/sale_lines.md").read_text(encoding="utf-8")
    assert 'table: "Sale Lines"\nprimary_key: line_id\n' in lines
    assert '  - name: "yes"\n    type: BOOLEAN\n' in lines  # a YAML word, quoted
    assert chr(0x202E) not in lines and chr(0x202E) not in out
    relationship = (tmp_path / "catalog/relationships/sale_lines_shops.md").read_text("utf-8")
    assert "origin_model: sale_lines\ntarget_model: shops\n" in relationship

    code, out, err = _run(["check"], tmp_path, capsys)
    assert (code, err) == (0, "")
    assert "catalog: 1 metric, 2 models, 1 relationships" in out  # shops has no time column
    month = ["--grain", "month", "--from", "2024-05-01", "--to", "2024-07-01"]
    code, out, err = _run(["query", "sale_lines_count", *month, "--text"], tmp_path, capsys)
    assert (code, err) == (0, "")
    assert _answer_rows(out) == [
        ["period", "sale_lines_count"],
        ["2024-05-01", "2"],
        ["2024-06-01", "1"],
    ]


def _rerun_after_a_change(
    root: Path, capsys: pytest.CaptureFixture[str], change: Callable[[], None], *argv: str
) -> str:
    """``init``, an author's edit of the drafted model ``visits``, ``change`` to the source,
    then ``init`` again: its output (the edited model checked untouched)."""
    code, out, err = _run(["init", *argv], root, capsys)
    assert (code, err) == (0, ""), out
    model = root / "catalog/models/visits.md"
    edited = model.read_text(encoding="utf-8").replace(
        "(Drafted by sutura init: describe it.)", "One row per visit, as the door counts them."
    )
    model.write_text(edited, encoding="utf-8")
    change()
    code, out, err = _run(["init", *argv], root, capsys)
    assert (code, err) == (0, ""), out
    assert model.read_text(encoding="utf-8") == edited  # the author's edit, never overwritten
    assert "  kept  models/visits.md (it exists; nothing was overwritten)" in out
    offered = (root / "catalog/models/visits.md.draft").read_text(encoding="utf-8")
    assert "  - name: channel\n" in offered and "  - name: spent\n" not in offered
    lines = out.split("\n")
    at = lines.index(
        "offered beside them (the source's columns now; your files are kept as they are):"
    )
    assert lines[at + 1] == "  wrote models/visits.md.draft"
    # The offer is no catalog document: check reads the author's model, and names the column
    # the table lost.
    code, _, err = _run(["check"], root, capsys)
    assert code == 1 and "the table has no column 'spent'" in err
    return out


def test_init_again_after_a_duckdb_file_changed_says_what_changed_and_offers_drafts_beside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "door.duckdb"
    with duckdb.connect(str(data)) as connection:
        connection.execute("CREATE TABLE visits (visit_id INTEGER, visited_on DATE, spent INTEGER)")
        connection.execute("CREATE TABLE doors (door_id INTEGER, opened_on DATE)")
    (tmp_path / "base.yaml").write_text(
        "sources:\n  door:\n    kind: duckdb\n    path: door.duckdb\n" + SECURITY, encoding="utf-8"
    )

    def change() -> None:
        with duckdb.connect(str(data)) as connection:
            connection.execute("ALTER TABLE visits ADD COLUMN channel VARCHAR")
            connection.execute("ALTER TABLE visits DROP COLUMN spent")
            connection.execute("DROP TABLE doors")
            connection.execute("CREATE TABLE exits (exit_id INTEGER)")

    out = _rerun_after_a_change(tmp_path, capsys, change)
    lines = out.split("\n")
    at = lines.index("changed in the source since these models were written:")
    assert lines[at + 1 : at + 3] == [
        "  models/doors.md (table doors): the source has no such table any more",
        "  models/visits.md (table visits): new in the source: channel; gone from it: spent",
    ]
    assert "  wrote models/exits.md" in lines  # a new table is drafted as the first time


@pytest.mark.postgres
def test_init_again_after_a_postgres_schema_changed_says_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], postgres_dsn: str
) -> None:
    with scratch_database(postgres_dsn) as scratch:
        reader = sql.Identifier(scratch.reader)
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            admin.execute("CREATE TABLE visits (visit_id integer, visited_on date, spent integer)")
            admin.execute(sql.SQL("GRANT SELECT ON visits TO {}").format(reader))
        (tmp_path / "base.yaml").write_text(
            f"sources:\n  db:\n    kind: postgres\n    host: {scratch.host}\n"
            f"    port: {scratch.port}\n    database: {scratch.database}\n"
            f"    user: {scratch.reader}\n    password_file: password\n"
            "    sslmode: disable\n" + SECURITY,
            encoding="utf-8",
        )

        def change() -> None:
            with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
                admin.execute("ALTER TABLE visits ADD COLUMN channel text, DROP COLUMN spent")

        (tmp_path / "password").write_text(scratch.reader_password, encoding="utf-8")
        out = _rerun_after_a_change(tmp_path, capsys, change)
    assert (
        "  models/visits.md (table visits): new in the source: channel; gone from it: spent"
        in out.split("\n")
    )


def test_init_again_after_a_spark_table_changed_says_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.spark_server import require_server, session

    remote = require_server()
    table = f"init_drift_{secrets.token_hex(4)}"  # the server is shared: a table of our own
    spark = session(remote)
    spark.sql(
        f"CREATE TABLE {table} (visit_id INT, visited_on DATE, spent INT) USING parquet"
    ).collect()
    (tmp_path / "base.yaml").write_text(
        f"sources:\n  spark:\n    kind: spark\n    remote: {remote}\n" + SECURITY,
        encoding="utf-8",
    )
    try:
        code, out, err = _run(["init", "--table", table], tmp_path, capsys)
        assert (code, err) == (0, "")
        spark.sql(f"ALTER TABLE {table} ADD COLUMNS (channel STRING)").collect()
        code, out, err = _run(["init", "--table", table], tmp_path, capsys)
        assert (code, err) == (0, "")
        assert f"  models/{table}.md (table {table}): new in the source: channel" in out.split("\n")
        assert (tmp_path / f"catalog/models/{table}.md.draft").is_file()
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table}").collect()
