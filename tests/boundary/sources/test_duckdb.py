"""The embedded DuckDB source: compiled questions on real data, bounds, lockdown, errors."""

import logging
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import duckdb
import pytest
from returns.result import Failure, Result

from sutura.boundary.cpus import available_cpus
from sutura.boundary.sources import duckdb as duckdb_source
from sutura.boundary.sources import duckdb_text
from sutura.boundary.sources.duckdb import DuckDBSource, open_duckdb
from sutura.boundary.sources.open import open_source
from sutura.boundary.sources.skeleton import CHUNK_ROWS, Source, TextRows, run_certified
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.refusal import Refusal, RefusalCode
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.settings import DuckDBSourceSettings, LimitsSettings
from sutura.core.sql.compile import compile_question
from sutura.core.sql.compiled import CompiledQuery, Passthrough
from sutura.core.sql.shape import shape_rows
from tests.boundary.sources.opening import context
from tests.core.sample_catalog import (
    CATALOG,
    CUSTOMERS_COLUMNS,
    CUSTOMERS_ROWS,
    ORDERS_COLUMNS,
    ORDERS_ROWS,
    resolved,
)
from tests.refusals import expect_refusal

pytestmark = pytest.mark.anyio

TABLES = (
    ("orders", ORDERS_COLUMNS, ORDERS_ROWS),
    ("customers", CUSTOMERS_COLUMNS, CUSTOMERS_ROWS),
)
SLOW = "SELECT count(*) FROM range(100000000) AS a(x), range(100000) AS b(y) WHERE x + y = 7"


def _write_database(path: Path) -> None:
    with duckdb.connect(str(path)) as con:
        for name, columns, rows in TABLES:
            con.execute(f"CREATE TABLE {name} ({', '.join(f'{c} {t}' for c, t in columns)})")
            marks = ", ".join("?" for _ in columns)
            con.executemany(f"INSERT INTO {name} VALUES ({marks})", [list(r) for r in rows])


def _csv_field(value: object) -> str:
    if value is None:
        return ""
    if value == "":
        return '""'
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _write_directory(directory: Path) -> None:
    directory.mkdir()
    header = ",".join(c for c, _ in ORDERS_COLUMNS)
    lines = [header, *(",".join(_csv_field(v) for v in row) for row in ORDERS_ROWS)]
    (directory / "orders.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with duckdb.connect() as con:
        _, columns, rows = TABLES[1]
        con.execute(f"CREATE TABLE c ({', '.join(f'{c} {t}' for c, t in columns)})")
        con.executemany("INSERT INTO c VALUES (?, ?, ?, ?)", [list(r) for r in rows])
        con.execute("COPY c TO ? (FORMAT parquet)", [str(directory / "customers.parquet")])


def _open(path: Path, limits: LimitsSettings | None = None) -> DuckDBSource:
    settings = DuckDBSourceSettings(path=str(path), threads=2)
    return open_duckdb("warehouse", settings, context(path.parent, limits)).unwrap()


@pytest.fixture(params=["database", "directory"])
async def source(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[DuckDBSource]:
    """The sample data as a read-only database file, and as a directory of CSV/Parquet."""
    path = tmp_path / ("warehouse.duckdb" if request.param == "database" else "files")
    (_write_database if request.param == "database" else _write_directory)(path)
    opened = _open(path)
    yield opened
    await opened.close()


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[DuckDBSource]:
    """The sample data as a read-only database file."""
    path = tmp_path / "warehouse.duckdb"
    _write_database(path)
    opened = _open(path)
    yield opened
    await opened.close()


def _raw(sql: str, width: int, params: tuple[object, ...] = ()) -> CompiledQuery:
    """A statement compiled by hand, shaped as it comes."""
    return CompiledQuery(
        sql=sql,
        params=params,
        columns=tuple(f"c{i}" for i in range(width)),
        plan=(),
        outputs=tuple(Passthrough(index=i) for i in range(width)),
        selected_width=width,
        source="warehouse",
        dialect=Dialect.DUCKDB,
    )


async def _run(
    source: Source, compiled: CompiledQuery, max_rows: int = 100
) -> Result[TextRows, Refusal]:
    return await run_certified(source, compiled, deadline_seconds=10.0, max_rows=max_rows)


async def _answer(source: Source, **fields: object) -> Result[TextRows, Refusal]:
    compiled = compile_question(resolved(**fields), CATALOG, SourceFacts(dialect=source.dialect))
    raw = await _run(source, compiled)
    return raw.bind(lambda rows: shape_rows(compiled, rows))


JAN, FEB, MAR, APR = "2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"
ANSWERS: list[tuple[dict[str, object], TextRows]] = [
    ({}, [[JAN, "30.50"], [FEB, "107.10"], [MAR, "33.43"]]),
    (
        {"metrics": ["revenue", "order_count", "average_order_value"]},
        [
            [JAN, "30.50", "2", "15.250000"],
            [FEB, "107.10", "3", "53.550000"],
            [MAR, "33.43", "2", "16.715000"],
        ],
    ),
    (
        {"dimensions": ["region", "segment"]},
        [
            [JAN, "EU", "enterprise", "30.50"],
            [FEB, "US", "enterprise", "100.10"],
            [FEB, None, None, "7.00"],
            [MAR, "US", "enterprise", "33.33"],
            [MAR, "US", "smb", "0.10"],
        ],
    ),
    (
        {"metrics": ["order_count"], "grain": "quarter", "dimensions": ["segment"]},
        [[JAN, "", "1"], [JAN, "enterprise", "4"], [JAN, "smb", "1"], [JAN, None, "1"]],
    ),
    (
        {"metrics": ["paid_share", "items_per_paid_order"], "dimensions": ["channel"]},
        [
            [JAN, "store", "1.000000", "2.000000"],
            [JAN, "web", "0.500000", "2.000000"],
            [FEB, "", "0.000000", None],
            [FEB, "web", "1.000000", "4.000000"],
            [FEB, None, "0.000000", None],
            [MAR, "store", "1.000000", "1.000000"],
            [MAR, "web", "1.000000", "3.000000"],
        ],
    ),
    (
        {"metrics": ["revenue_per_unit"]},
        [[JAN, "10.166667"], [FEB, "26.775000"], [MAR, "8.357500"]],
    ),
    (
        {
            "grain": "quarter",
            "dimensions": ["channel"],
            "filters": [{"op": "eq", "dimension": "region", "value": "EU"}],
        },
        [[JAN, "store", "20.00"], [JAN, "web", "10.50"]],
    ),
    (
        {
            "metrics": ["order_count"],
            "dimensions": ["channel"],
            "filters": [{"op": "not_in", "dimension": "channel", "values": ["store", ""]}],
        },
        [[JAN, "web", "1"], [FEB, "web", "1"], [MAR, "web", "1"]],
    ),
    (
        {"grain": "quarter", "dimensions": ["region"], "top": {"n": 1, "by": "revenue"}},
        [[JAN, "US", "133.53"]],
    ),
    (
        {
            "metrics": ["smallest_order", "largest_order"],
            "grain": "quarter",
            "dimensions": ["status"],
        },
        [
            [JAN, "cancelled", "5.25", "5.25"],
            [JAN, "complete", "0.10", "100.10"],
            [JAN, "pending", "12.00", "12.00"],
        ],
    ),
    (
        {
            "metrics": ["customers_ordering", "paid_orders"],
            "grain": "week",
            "range": {"start": "2024-01-03", "end": "2024-02-01"},
        },
        [["2024-01-01", "1", "1"], ["2024-01-15", "2", "1"], ["2024-01-29", "1", "1"]],
    ),
    (
        {
            "metrics": ["units"],
            "range": {"last": {"count": 3, "unit": "month", "include_current": True}},
        },
        [[MAR, "4"], [APR, "1"]],
    ),
    ({"metrics": ["paid_revenue"]}, [[JAN, "30.50"], [FEB, "100.10"], [MAR, "33.43"]]),
    (
        {
            "metrics": ["revenue_per_unit", "revenue"],
            "grain": "quarter",
            "dimensions": ["region"],
            "top": {"n": 2, "by": "revenue_per_unit", "direction": "asc"},
        },
        [[JAN, "EU", "10.166667", "30.50"], [JAN, "US", "16.691250", "133.53"]],
    ),
]


@pytest.mark.parametrize(("fields", "expected"), ANSWERS)
async def test_compiled_questions_give_the_expected_text_rows(
    source: DuckDBSource, fields: dict[str, object], expected: TextRows
) -> None:
    assert (await _answer(source, **fields)).unwrap() == expected


@pytest.mark.parametrize(("fields", "expected"), ANSWERS)
async def test_a_question_asked_again_gives_the_same_text_rows_cast_by_the_engine(
    source: DuckDBSource,
    fields: dict[str, object],
    expected: TextRows,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(duckdb_text, "WORTH_CASTING", 0)  # these answers are short
    first = (await _answer(source, **fields)).unwrap()  # the plain statement, its types learnt
    assert (await _answer(source, **fields)).unwrap() == first == expected  # the wrapped one


async def test_a_zero_denominator_under_fails_refuses_the_answer(source: DuckDBSource) -> None:
    outcome = await _answer(source, metrics=["revenue_per_unit"], dimensions=["channel"])
    expect_refusal(outcome, RefusalCode.DENOMINATOR_ZERO)


async def test_integers_and_decimals_come_back_exact_with_their_scale(
    database: DuckDBSource,
) -> None:
    statement = (
        "SELECT 9223372036854775807::BIGINT, 170141183460469231731687303715884105727::HUGEINT,"
        " 0.10::DECIMAL(4, 2), 12345678901234567890.123456::DECIMAL(38, 6), 0.1::DOUBLE, true"
    )
    rows = (await _run(database, _raw(statement, 6))).unwrap()
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(duckdb_text, "WORTH_CASTING", 0)
        assert (await _run(database, _raw(statement, 6))).unwrap() == rows  # cast by the engine
    assert rows == [
        [
            "9223372036854775807",
            "170141183460469231731687303715884105727",
            "0.10",
            "12345678901234567890.123456",
            "0.1",
            "true",
        ]
    ]


async def test_null_and_the_empty_string_stay_distinct(database: DuckDBSource) -> None:
    statement = "SELECT NULL::VARCHAR, '', DATE '2024-02-29', TIMESTAMP '2024-02-29 13:05:00'"
    rows = (await _run(database, _raw(statement, 4))).unwrap()
    assert rows == [[None, "", "2024-02-29", "2024-02-29T13:05:00"]]


async def test_bound_parameters_are_passed_to_the_engine(database: DuckDBSource) -> None:
    compiled = _raw("SELECT ? || '!', ? + 1", 2, ("it's", 41))
    assert (await _run(database, compiled)).unwrap() == [["it's!", "42"]]


async def test_exactly_max_rows_rows_are_returned_whole(database: DuckDBSource) -> None:
    rows = (await _run(database, _raw("SELECT * FROM range(10)", 1), max_rows=10)).unwrap()
    assert [r[0] for r in rows] == [str(i) for i in range(10)]


async def test_one_row_over_max_rows_is_refused_never_truncated(database: DuckDBSource) -> None:
    outcome = await _run(database, _raw("SELECT * FROM range(11)", 1), max_rows=10)
    expect_refusal(outcome, RefusalCode.RESULT_TOO_LARGE)


def _chunked(rows: int) -> list[list[str | None]]:
    """What :data:`CHUNKED` answers: a repeating column with NULLs, and a unique one."""
    return [[str(i), None if i % 5 == 0 else f"k{i % 3}", f"x{i}"] for i in range(rows)]


CHUNKED = (
    "SELECT i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'k' || (i % 3) END, 'x' || i"
    " FROM range(?) AS t(i) ORDER BY i"
)


@pytest.mark.parametrize("rows", [CHUNK_ROWS - 1, CHUNK_ROWS, 2 * CHUNK_ROWS, 2 * CHUNK_ROWS + 7])
async def test_rows_fetched_over_several_chunks_are_whole_at_every_chunk_edge(
    database: DuckDBSource, rows: int
) -> None:
    compiled = _raw(CHUNKED, 3, (rows,))
    assert (await _run(database, compiled, max_rows=rows)).unwrap() == _chunked(rows)
    over = await _run(database, compiled, max_rows=rows - 1)
    expect_refusal(over, RefusalCode.RESULT_TOO_LARGE)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(duckdb_text, "WORTH_CASTING", 0)
        assert (await _run(database, compiled, max_rows=rows)).unwrap() == _chunked(rows)


async def test_a_value_without_canonical_text_past_the_first_chunk_is_refused(
    database: DuckDBSource,
) -> None:
    blob = (
        f"SELECT CASE WHEN i < {CHUNK_ROWS + 3} THEN NULL ELSE 'abc'::BLOB END FROM range(?) t(i)"
    )
    outcome = await _run(database, _raw(blob, 1, (CHUNK_ROWS + 5,)), max_rows=10_000)
    expect_refusal(outcome, RefusalCode.VALUE_NOT_REPRESENTABLE)
    assert (await _run(database, _raw("SELECT 1", 1))).unwrap() == [["1"]]


async def test_a_slow_query_is_interrupted_at_the_deadline(database: DuckDBSource) -> None:
    started = time.monotonic()
    with anyio.fail_after(10):
        outcome = await run_certified(database, _raw(SLOW, 1), deadline_seconds=0.2, max_rows=10)
    expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
    assert time.monotonic() - started < 2.0
    with anyio.fail_after(10):
        assert (await _run(database, _raw("SELECT 1", 1))).unwrap() == [["1"]]


async def test_a_cancelled_caller_interrupts_the_running_query(database: DuckDBSource) -> None:
    started = time.monotonic()
    with anyio.fail_after(10), anyio.move_on_after(0.2):
        await run_certified(database, _raw(SLOW, 1), deadline_seconds=60.0, max_rows=10)
    assert time.monotonic() - started < 2.0
    with anyio.fail_after(5):
        assert (await _run(database, _raw("SELECT 2", 1))).unwrap() == [["2"]]


async def _running_slow(source: DuckDBSource, scope: anyio.CancelScope) -> None:
    with scope:
        await run_certified(source, _raw(SLOW, 1), deadline_seconds=60.0, max_rows=10)


async def test_a_statement_past_the_limit_waits_for_a_running_one_to_end(tmp_path: Path) -> None:
    path = tmp_path / "one.duckdb"
    _write_database(path)
    settings = DuckDBSourceSettings(path=str(path), threads=2, max_concurrent_statements=1)
    one = open_duckdb("one", settings, context(tmp_path)).unwrap()
    slow, answers = anyio.CancelScope(), []
    try:
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_running_slow, one, slow)
                await anyio.sleep(0.2)  # the slow statement holds the one place

                async def quick() -> None:
                    answers.append((await _run(one, _raw("SELECT 3", 1))).unwrap())

                tasks.start_soon(quick)
                await anyio.sleep(0.5)
                assert answers == []  # waiting its turn, not running beside it
                slow.cancel()  # the slow one is interrupted; the waiting one runs
        assert answers == [[["3"]]]
    finally:
        await one.close()


async def test_a_statement_within_the_limit_runs_beside_a_slow_one(tmp_path: Path) -> None:
    path = tmp_path / "two.duckdb"
    _write_database(path)
    settings = DuckDBSourceSettings(path=str(path), threads=2, max_concurrent_statements=2)
    two = open_duckdb("two", settings, context(tmp_path)).unwrap()
    slow = anyio.CancelScope()
    try:
        with anyio.fail_after(20):
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_running_slow, two, slow)
                await anyio.sleep(0.2)
                with anyio.fail_after(10):  # the slow one runs for minutes
                    assert (await _run(two, _raw("SELECT 4", 1))).unwrap() == [["4"]]
                slow.cancel()
    finally:
        await two.close()


@pytest.mark.parametrize(
    ("threads", "statements", "at_once"),
    [(None, None, available_cpus()), (3, None, 3), (3, 5, 5)],
)
async def test_a_source_runs_as_many_statements_at_once_as_it_has_engine_threads(
    tmp_path: Path, threads: int | None, statements: int | None, at_once: int
) -> None:
    path = tmp_path / "counted.duckdb"
    _write_database(path)
    settings = DuckDBSourceSettings(
        path=str(path), threads=threads, max_concurrent_statements=statements
    )
    opened = open_duckdb("counted", settings, context(tmp_path)).unwrap()
    try:
        assert opened.capacity().statements_at_once == at_once
    finally:
        await opened.close()


async def test_a_tiny_memory_limit_is_refused_as_resources_exhausted(tmp_path: Path) -> None:
    path = tmp_path / "small.duckdb"
    _write_database(path)
    small = _open(path, LimitsSettings(memory_limit="2MB"))
    statement = "SELECT count(DISTINCT i::VARCHAR || 'x') FROM range(10000000) AS t(i)"
    with anyio.fail_after(30):
        outcome = await _run(small, _raw(statement, 1))
    await small.close()
    expect_refusal(outcome, RefusalCode.RESOURCES_EXHAUSTED)


@pytest.mark.parametrize("kind", ["database", "directory"])
async def test_the_memory_bound_refuses_and_never_spills_to_disk(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ("spill.duckdb" if kind == "database" else "files")
    (_write_database if kind == "database" else _write_directory)(path)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    bounded = _open(path, LimitsSettings(memory_limit="48MB"))
    # A sort of ~200 MB: past the bound, DuckDB would write it to a temporary directory.
    statement = (
        "SELECT count(*) FROM (SELECT i::VARCHAR || repeat('x', 24) AS s"
        " FROM range(6000000) AS t(i) ORDER BY s DESC)"
    )
    with anyio.fail_after(60):
        outcome = await _run(bounded, _raw(statement, 1))
    await bounded.close()
    expect_refusal(outcome, RefusalCode.RESOURCES_EXHAUSTED)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


async def test_a_driver_error_is_refused_and_its_message_only_logged(
    database: DuckDBSource, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="sutura.source"):
        outcome = await _run(database, _raw("SELECT * FROM no_such_table", 1))
    refusal = expect_refusal(outcome, RefusalCode.SOURCE_REFUSED)
    assert "no_such_table" not in refusal.detail
    assert "no_such_table" in caplog.text


async def test_a_closed_source_is_unavailable(tmp_path: Path) -> None:
    path = tmp_path / "closing.duckdb"
    _write_database(path)
    closing = _open(path)
    await closing.close()
    expect_refusal(await _run(closing, _raw("SELECT 1", 1)), RefusalCode.SOURCE_UNAVAILABLE)


async def test_a_value_without_canonical_text_is_refused(database: DuckDBSource) -> None:
    outcome = await _run(database, _raw("SELECT 'abc'::BLOB", 1))
    expect_refusal(outcome, RefusalCode.VALUE_NOT_REPRESENTABLE)


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO orders (order_id) VALUES (99)",
        "CREATE TABLE t AS SELECT 1",
        "SELECT * FROM read_csv('/etc/hostname')",
        "SELECT * FROM read_text('/etc/hostname')",
        "COPY orders TO '/tmp/sutura-leak.csv'",
        "ATTACH ':memory:' AS other",
        "SET memory_limit = '64GB'",
        "SET enable_external_access = true",
        "INSTALL httpfs",
    ],
)
async def test_the_connection_is_read_only_and_locked_down(
    database: DuckDBSource, statement: str
) -> None:
    expect_refusal(await _run(database, _raw(statement, 1)), RefusalCode.SOURCE_REFUSED)


async def test_a_directory_source_is_locked_down_after_loading(tmp_path: Path) -> None:
    _write_directory(tmp_path / "files")
    loaded = _open(tmp_path / "files")
    outcome = await _run(loaded, _raw("SELECT * FROM read_text('/etc/hostname')", 1))
    await loaded.close()
    expect_refusal(outcome, RefusalCode.SOURCE_REFUSED)


async def test_csv_decimals_load_as_exact_decimals_and_other_numbers_as_doubles(
    tmp_path: Path,
) -> None:
    directory = tmp_path / "numbers"
    directory.mkdir()
    (directory / "n.csv").write_text('price,ratio,label\n0.10,1e5,\n2.5,2.5,""\n', encoding="utf-8")
    loaded = _open(directory)
    statement = (
        "SELECT sum(price), any_value(typeof(price)), sum(ratio), any_value(typeof(ratio)),"
        " count(label), count(*) FILTER (WHERE label = '') FROM \"n\""
    )
    rows = (await _run(loaded, _raw(statement, 6))).unwrap()
    await loaded.close()
    assert rows == [["2.60", "DECIMAL(18,2)", "100002.5", "DOUBLE", "1", "1"]]


def test_a_path_that_does_not_exist_stops_startup_naming_it(tmp_path: Path) -> None:
    settings = DuckDBSourceSettings(path="missing.duckdb")
    message = open_duckdb("w", settings, context(tmp_path, LimitsSettings())).failure()
    assert str(tmp_path / "missing.duckdb") in message


async def test_a_relative_path_is_relative_to_the_settings_directory(tmp_path: Path) -> None:
    _write_database(tmp_path / "rel.duckdb")
    settings = DuckDBSourceSettings(path="rel.duckdb")
    opened = open_duckdb("w", settings, context(tmp_path, LimitsSettings())).unwrap()
    assert (await _run(opened, _raw("SELECT count(*) FROM orders", 1))).unwrap() == [["10"]]
    await opened.close()


def test_a_file_that_is_not_a_database_stops_startup_naming_it(tmp_path: Path) -> None:
    (tmp_path / "bad.duckdb").write_text("not a database", encoding="utf-8")
    settings = DuckDBSourceSettings(path="bad.duckdb")
    message = open_duckdb("w", settings, context(tmp_path, LimitsSettings())).failure()
    assert str(tmp_path / "bad.duckdb") in message


def test_an_empty_directory_stops_startup(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    settings = DuckDBSourceSettings(path="empty")
    message = open_duckdb("w", settings, context(tmp_path, LimitsSettings())).failure()
    assert "no .csv or .parquet file" in message and str(tmp_path / "empty") in message


@pytest.mark.parametrize("names", [("t.csv", "t.parquet"), ("T.csv", "t.csv")])
def test_two_files_that_would_be_one_table_stop_startup(
    tmp_path: Path, names: tuple[str, str]
) -> None:
    directory = tmp_path / "files"
    directory.mkdir()
    for name in names:
        (directory / name).write_text("a\n1\n", encoding="utf-8")
    message = open_duckdb(
        "w", DuckDBSourceSettings(path="files"), context(tmp_path, LimitsSettings())
    ).failure()
    assert "rename one" in message and str(directory) in message


def test_an_invalid_memory_limit_stops_startup(tmp_path: Path) -> None:
    _write_database(tmp_path / "m.duckdb")
    settings = DuckDBSourceSettings(path="m.duckdb")
    limits = LimitsSettings(memory_limit="lots")
    message = open_duckdb("w", settings, context(tmp_path, limits)).failure()
    assert "memory_limit" in message and str(tmp_path / "m.duckdb") in message


async def test_a_duckdb_source_satisfies_the_source_protocol(tmp_path: Path) -> None:
    _write_database(tmp_path / "p.duckdb")
    source: Source = _open(tmp_path / "p.duckdb")
    assert (source.alias, source.posture, source.dialect) == (
        "warehouse",
        "shared-service-user",
        "duckdb",
    )
    await source.close()


async def test_every_cursor_reads_in_the_catalog_time_zone_not_the_host_one(
    tmp_path: Path,
) -> None:
    _write_database(tmp_path / "z.duckdb")
    settings = DuckDBSourceSettings(path="z.duckdb")
    zone = context(tmp_path, time_zone="America/Los_Angeles")
    opened = open_duckdb("w", settings, zone).unwrap()
    try:
        shown = await _run(opened, _raw("SELECT current_setting('TimeZone')", 1))
        bucket = await _run(
            opened,
            _raw("SELECT CAST(DATE_TRUNC('day', TIMESTAMPTZ '2024-02-01 03:00:00+00') AS DATE)", 1),
        )
    finally:
        await opened.close()
    assert shown.unwrap() == [["America/Los_Angeles"]]
    assert bucket.unwrap() == [["2024-01-31"]]


async def test_a_duckdb_source_opens_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connecting (or loading a directory of files) runs in a worker thread: the loop that
    opens the source runs other tasks meanwhile."""
    loop_ran = threading.Event()

    def opening(*_: object) -> Result[DuckDBSource, str]:
        ran = loop_ran.wait(timeout=10)  # set by a task on the loop, unless the loop is held
        return Failure("the loop ran" if ran else "the loop was held")

    monkeypatch.setattr(duckdb_source, "open_duckdb", opening)
    settings = DuckDBSourceSettings(path="warehouse.duckdb")
    found: list[Result[Source, str]] = []

    async def open_it() -> None:
        found.append(await open_source("warehouse", settings, context(tmp_path)))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(open_it)
            await anyio.sleep(0)
            loop_ran.set()
    assert [result.failure() for result in found] == ["the loop ran"]
