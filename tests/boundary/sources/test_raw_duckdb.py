"""run_sql on DuckDB: the bypass corpus through the runner and on the locked engine alone,
the deadline, the row cap, and real failure texts provoked by hostile statements."""

from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import duckdb
import msgspec
import pytest

from sutura.boundary.sources.duckdb import open_duckdb
from sutura.boundary.sources.duckdb_raw import (
    DuckDBRaw,
    execute_on_engine,
    locked_instance,
    open_duckdb_raw,
)
from sutura.boundary.sources.skeleton import run_raw
from sutura.core.raw.outcome import RawOutcome, RawRefusal, RawRefusalCode, RawRows
from sutura.core.settings import DuckDBSourceSettings, LimitsSettings
from sutura.core.text.untrusted import Case
from tests.boundary.sources.opening import context
from tests.raw_sql_bypass import (
    ANSWER_SECONDS,
    CANARY,
    CORPUS,
    DEADLINE,
    DEADLINE_SECONDS,
    HUGE_CROSS_JOIN,
    ROWS,
    SECRET_RELATION,
    Bypass,
    assert_failure_text_is_quoted,
    carried_failure_cases,
    deadline_for,
    doubled,
    paths_in,
    spelled,
)

pytestmark = pytest.mark.anyio

LIMITS = LimitsSettings(memory_limit="256MB", deadline_seconds=DEADLINE_SECONDS)
MAX_ROWS = 10
STATE = (
    "SELECT current_setting('enable_external_access'), current_setting('lock_configuration'),"
    " current_setting('memory_limit'), current_setting('threads'),"
    " current_setting('python_enable_replacements'), current_setting('autoload_known_extensions'),"
    " current_setting('allow_unsigned_extensions'),"
    " (SELECT string_agg(database_name, ',' ORDER BY database_name) FROM duckdb_databases()),"
    " (SELECT string_agg(table_name, ',' ORDER BY table_name) FROM duckdb_tables())"
)


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file with the table ``t``: three rows (every test checks it is unchanged)."""
    path = tmp_path_factory.mktemp("raw_duckdb") / "data.duckdb"
    with duckdb.connect(str(path)) as writer:
        writer.execute("CREATE TABLE t AS SELECT range AS id, 'kept' AS secret FROM range(3)")
    return path


def _settings(path: Path) -> DuckDBSourceSettings:
    return DuckDBSourceSettings(path=str(path), threads=1)


@pytest.fixture
async def runner(data_file: Path) -> AsyncIterator[DuckDBRaw]:
    """The raw runner over ``data_file``."""
    opened = open_duckdb_raw(
        "main", _settings(data_file), context(data_file.parent, LIMITS)
    ).unwrap()
    try:
        yield opened
    finally:
        await opened.close()


async def _run(
    runner: DuckDBRaw,
    statement: str,
    max_rows: int = MAX_ROWS,
    deadline_seconds: float = ANSWER_SECONDS,
) -> RawOutcome:
    with anyio.fail_after(deadline_seconds + 5):
        return await run_raw(
            runner,
            statement,
            deadline_seconds=deadline_seconds,
            max_rows=max_rows,
            grace_seconds=runner.grace_seconds,
        )


def _code(outcome: RawOutcome) -> str:
    return ROWS if isinstance(outcome, RawRows) else outcome.code.value


def _table(data_file: Path) -> list[tuple[object, ...]]:
    with duckdb.connect(str(data_file), read_only=True) as reader:
        return reader.execute("SELECT * FROM t ORDER BY id").fetchall()


async def _state(runner: DuckDBRaw, data_file: Path) -> tuple[object, ...]:
    """The settings, databases, extensions and tables the runner sees, and the data on disk."""
    seen = await _run(runner, STATE)
    assert isinstance(seen, RawRows), seen
    return (seen.rows, _table(data_file))


def _leaks(outcome: RawOutcome) -> bool:
    """Whether the outcome carries a file's content (the canary, or the environment)."""
    body = msgspec.json.encode(outcome).decode()
    return CANARY in body or "PATH=" in body


def test_the_runner_opens_every_setting_of_the_lockdown(data_file: Path) -> None:
    connection = locked_instance(data_file, _settings(data_file), context(data_file.parent, LIMITS))
    try:
        found = connection.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access',"
            " 'autoload_known_extensions', 'autoinstall_known_extensions',"
            " 'allow_community_extensions', 'allow_unsigned_extensions',"
            " 'python_enable_replacements', 'allow_persistent_secrets', 'lock_configuration',"
            " 'threads') ORDER BY name"
        ).fetchall()
        databases = connection.execute("SELECT database_name, readonly FROM duckdb_databases()")
        attached = {name: readonly for name, readonly in databases.fetchall()}
    finally:
        connection.close()
    assert dict(found) == {
        "allow_community_extensions": "false",
        "allow_persistent_secrets": "false",
        "allow_unsigned_extensions": "false",
        "autoinstall_known_extensions": "false",
        "autoload_known_extensions": "false",
        "enable_external_access": "false",
        "lock_configuration": "true",
        "python_enable_replacements": "false",
        "threads": "1",
    }
    assert attached == {"data": True, "system": False, "temp": False}


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.name)
async def test_every_bypass_ends_as_expected_and_changes_nothing_through_the_runner(
    runner: DuckDBRaw, data_file: Path, tmp_path: Path, case: Bypass
) -> None:
    paths = paths_in(tmp_path)
    before = await _state(runner, data_file)
    started = anyio.current_time()
    # Its worker is warm (``_state``); a runaway gets the short deadline.
    deadline = deadline_for(case.duckdb_gated)
    outcome = await _run(runner, spelled(case.duckdb, paths), deadline_seconds=deadline)
    assert _code(outcome) == case.duckdb_gated, outcome
    if case.duckdb_gated == DEADLINE:
        assert anyio.current_time() - started < DEADLINE_SECONDS + 1.0
    assert not _leaks(outcome)
    assert await _state(runner, data_file) == before
    assert paths.untouched()


@pytest.mark.parametrize("case", [c for c in CORPUS if not c.long], ids=lambda c: c.name)
def test_every_bypass_fails_on_the_locked_engine_with_no_parser_gate(
    data_file: Path, tmp_path: Path, case: Bypass
) -> None:
    paths = paths_in(tmp_path)
    connection = locked_instance(data_file, _settings(data_file), context(data_file.parent, LIMITS))
    try:
        before = connection.execute(STATE).fetchall()
        outcome = execute_on_engine(connection.cursor(), spelled(case.duckdb, paths), MAX_ROWS)
        assert connection.execute(STATE).fetchall() == before
    finally:
        connection.close()
    assert not _leaks(outcome)
    assert _table(data_file) == [(0, "kept"), (1, "kept"), (2, "kept")]
    assert paths.untouched()
    assert isinstance(outcome, RawRefusal) or case.duckdb_gated == ROWS


def test_a_python_variable_in_the_calling_frame_is_no_table_on_the_locked_engine(
    data_file: Path,
) -> None:
    plain = duckdb.connect()
    secret_relation = plain.sql("SELECT 'TOPSECRET' AS s")
    # The control: on a default connection, the variable's name reads the variable.
    assert plain.execute(f"SELECT * FROM {SECRET_RELATION}").fetchall() == [("TOPSECRET",)]
    plain.close()
    locked = locked_instance(data_file, _settings(data_file), context(data_file.parent, LIMITS))
    try:
        secret_relation = locked.sql("SELECT 'TOPSECRET' AS s")
        with pytest.raises(duckdb.CatalogException):
            locked.execute(f"SELECT * FROM {SECRET_RELATION}")
        assert secret_relation.columns == ["s"]  # the variable is there, under that name
    finally:
        locked.close()


async def test_a_runaway_statement_is_interrupted_at_the_deadline(runner: DuckDBRaw) -> None:
    assert _code(await _run(runner, "SELECT 1")) == ROWS  # its worker started
    started = anyio.current_time()
    outcome = await _run(runner, HUGE_CROSS_JOIN, deadline_seconds=DEADLINE_SECONDS)
    assert _code(outcome) == RawRefusalCode.DEADLINE_EXCEEDED.value
    assert anyio.current_time() - started < DEADLINE_SECONDS + 1.0
    assert _code(await _run(runner, "SELECT 1")) == ROWS  # the instance is still usable


async def test_rows_over_the_cap_are_refused_never_cut(runner: DuckDBRaw) -> None:
    exactly = await _run(runner, "SELECT * FROM range(5)", max_rows=5)
    assert isinstance(exactly, RawRows) and len(exactly.rows) == 5
    over = await _run(runner, "SELECT * FROM range(6)", max_rows=5)
    assert _code(over) == RawRefusalCode.TOO_MANY_ROWS.value


async def test_rows_come_back_as_text_with_their_column_names(runner: DuckDBRaw) -> None:
    outcome = await _run(
        runner, "SELECT id, secret, NULL AS nothing FROM t WHERE id < 2 ORDER BY id"
    )
    assert outcome == RawRows(
        columns=["id", "secret", "nothing"], rows=[["0", "kept", None], ["1", "kept", None]]
    )
    empty = await _run(runner, "SELECT id, secret FROM t WHERE false")
    assert empty == RawRows(columns=["id", "secret"], rows=[])


async def test_a_value_without_canonical_text_is_refused_whole(runner: DuckDBRaw) -> None:
    outcome = await _run(runner, "SELECT [1, 2] AS list")
    assert _code(outcome) == RawRefusalCode.VALUE_NOT_SUPPORTED.value


async def test_a_statement_the_engine_cannot_parse_comes_back_in_its_own_words(
    runner: DuckDBRaw,
) -> None:
    outcome = await _run(runner, "SELEC 1")
    assert isinstance(outcome, RawRefusal) and isinstance(outcome.database_text, str)
    assert outcome.code is RawRefusalCode.STATEMENT_FAILED
    assert "syntax error" in outcome.database_text


async def test_a_lone_surrogate_is_refused_before_any_parser(runner: DuckDBRaw) -> None:
    assert _code(await _run(runner, "SELECT '\ud800'")) == RawRefusalCode.NOT_READ_ONLY.value


@pytest.mark.parametrize("case", carried_failure_cases(), ids=lambda c: c.name)
async def test_a_hostile_name_in_a_real_failure_is_quoted_escaped_and_capped(
    runner: DuckDBRaw, case: Case
) -> None:
    outcome = await _run(runner, f'SELECT * FROM "{doubled(case.value, chr(34))}"')
    assert _code(outcome) == RawRefusalCode.STATEMENT_FAILED.value
    assert_failure_text_is_quoted(outcome)


async def test_a_directory_of_files_is_read_from_a_private_read_only_copy(tmp_path: Path) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "orders.csv").write_text("id,amount\n1,2.50\n2,3.75\n", encoding="utf-8")
    settings = DuckDBSourceSettings(path=str(files))
    runner = open_duckdb_raw("files", settings, context(tmp_path, LIMITS)).unwrap()
    try:
        rows = await _run(runner, "SELECT id, amount FROM orders ORDER BY id")
        dropped = await _run(runner, "DROP TABLE orders")
    finally:
        await runner.close()
    assert rows == RawRows(columns=["id", "amount"], rows=[["1", "2.50"], ["2", "3.75"]])
    assert _code(dropped) == RawRefusalCode.NOT_READ_ONLY.value
    assert (files / "orders.csv").read_text(encoding="utf-8").startswith("id,amount")
    assert sorted(p.name for p in files.iterdir()) == ["orders.csv"]


async def test_the_runner_and_the_certified_source_read_one_file_at_once(data_file: Path) -> None:
    certified = open_duckdb(
        "main", _settings(data_file), context(data_file.parent, LIMITS)
    ).unwrap()
    try:
        raw = open_duckdb_raw(
            "main", _settings(data_file), context(data_file.parent, LIMITS)
        ).unwrap()
        outcome = await _run(raw, "SELECT count(*) FROM t")
        await raw.close()
    finally:
        await certified.close()
    assert outcome == RawRows(columns=["count_star()"], rows=[["3"]])


def test_a_missing_path_is_an_operator_sentence(tmp_path: Path) -> None:
    settings = DuckDBSourceSettings(path="nowhere.duckdb")
    problem = open_duckdb_raw("main", settings, context(tmp_path, LIMITS)).failure()
    assert problem == f"{tmp_path / 'nowhere.duckdb'} does not exist"


async def test_a_closed_runner_refuses_as_unavailable(runner: DuckDBRaw) -> None:
    await runner.close()
    assert _code(await _run(runner, "SELECT 1")) == RawRefusalCode.SOURCE_UNAVAILABLE.value


async def test_a_statement_over_the_memory_limit_is_resources_exhausted(data_file: Path) -> None:
    small = LimitsSettings(memory_limit="32MB", deadline_seconds=DEADLINE_SECONDS)
    runner = open_duckdb_raw(
        "main", _settings(data_file), context(data_file.parent, small)
    ).unwrap()
    statement = (
        "SELECT max(length(s)) FROM (SELECT string_agg(range::VARCHAR, ',') AS s"
        " FROM range(20000000))"
    )
    try:
        outcome = await _run(runner, statement)
    finally:
        await runner.close()
    assert _code(outcome) == RawRefusalCode.RESOURCES_EXHAUSTED.value


async def test_the_runner_reads_in_the_catalog_time_zone(data_file: Path) -> None:
    zone = context(data_file.parent, LIMITS, time_zone="Asia/Tokyo")
    runner = open_duckdb_raw("main", _settings(data_file), zone).unwrap()
    try:
        outcome = await _run(runner, "SELECT current_setting('TimeZone') AS zone")
    finally:
        await runner.close()
    assert outcome == RawRows(columns=["zone"], rows=[["Asia/Tokyo"]])
