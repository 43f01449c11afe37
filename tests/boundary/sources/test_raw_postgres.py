"""run_sql on PostgreSQL: the bypass corpus through the runner and on the engine with no parser
gate, the role check, the deadline, the row cap, and real failure texts from hostile statements.

Every test reads a scratch database through a role that may only connect and ``SELECT`` the
table ``t`` (``TEMPORARY`` revoked): the role ``docs/raw-sql.md`` asks operators to grant.
"""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import msgspec
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from sutura.boundary.sources.postgres import PostgresRaw, execute_on_engine, open_postgres_raw
from sutura.boundary.sources.postgres_connect import Target
from sutura.boundary.sources.skeleton import run_raw
from sutura.core.raw.outcome import RawOutcome, RawRefusal, RawRefusalCode, RawRows
from sutura.core.settings import PostgresSourceSettings
from sutura.core.text.untrusted import Case
from tests.boundary.sources.opening import context
from tests.postgres import Scratch, scratch_database
from tests.raw_sql_bypass import (
    ANSWER_SECONDS,
    CANARY,
    CORPUS,
    DEADLINE,
    DEADLINE_SECONDS,
    ROWS,
    Bypass,
    assert_failure_text_is_quoted,
    carried_failure_cases,
    deadline_for,
    doubled,
    paths_in,
    spelled,
)

pytestmark = [pytest.mark.anyio, pytest.mark.postgres]

MAX_ROWS = 10
ROWS_OF_T = "0:kept,1:kept,2:kept"
SERVER_STATE = (
    "SELECT (SELECT string_agg(id || ':' || secret, ',' ORDER BY id) FROM t),"
    " (SELECT string_agg(c.relname, ',' ORDER BY c.relname) FROM pg_class c"
    "  JOIN pg_namespace n ON n.oid = c.relnamespace"
    "  WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'),"
    " (SELECT count(*) FROM pg_largeobject_metadata),"
    # Stored settings that reach this database: its own, and any role's that apply everywhere
    # (other suites' scratch databases may hold theirs meanwhile).
    " (SELECT count(*) FROM pg_db_role_setting s WHERE s.setdatabase IN"
    "  (0, (SELECT oid FROM pg_database WHERE datname = current_database()))),"
    " (SELECT count(*) FROM pg_prepared_xacts)"
)
SESSION_STATE = (
    "SELECT current_setting('default_transaction_read_only'),"
    " current_setting('transaction_read_only'), current_setting('TimeZone'),"
    " current_setting('statement_timeout') <> '0', current_user"
)


@pytest.fixture(scope="module")
def scratch(postgres_dsn: str) -> Iterator[Scratch]:
    """A scratch database holding ``t``, which only its reader role may ``SELECT``."""
    with scratch_database(postgres_dsn) as created, psycopg.connect(created.admin_dsn) as admin:
        admin.execute(
            "CREATE TABLE t AS SELECT g AS id, 'kept' AS secret FROM generate_series(0, 2) g"
        )
        admin.execute(sql.SQL("GRANT SELECT ON t TO {}").format(sql.Identifier(created.reader)))
        admin.commit()
        yield created


@pytest.fixture(scope="module")
def settings(scratch: Scratch, tmp_path_factory: pytest.TempPathFactory) -> PostgresSourceSettings:
    """Source settings reaching the scratch database as its reader (password from a file)."""
    secret = tmp_path_factory.mktemp("raw_pg") / "password"
    secret.write_text(scratch.reader_password, encoding="utf-8")
    return PostgresSourceSettings(
        host=scratch.host,
        port=scratch.port,
        database=scratch.database,
        user=scratch.reader,
        password_file=str(secret),
    )


@pytest.fixture
async def runner(settings: PostgresSourceSettings) -> AsyncIterator[PostgresRaw]:
    with anyio.fail_after(15):
        opened = (await open_postgres_raw("main", settings, context(Path(".")))).unwrap()
    yield opened
    await opened.close()


async def _run(
    runner: PostgresRaw,
    statement: str,
    max_rows: int = MAX_ROWS,
    deadline_seconds: float = ANSWER_SECONDS,
) -> RawOutcome:
    with anyio.fail_after(deadline_seconds + 5):
        return await run_raw(
            runner, statement, deadline_seconds=deadline_seconds, max_rows=max_rows
        )


async def _agree(_statement: str) -> RawRefusal | None:
    return None


async def _on_the_engine_alone(runner: PostgresRaw, statement: str) -> RawOutcome:
    """``statement`` in the runner's transaction with no second opinion."""
    with anyio.fail_after(DEADLINE_SECONDS + 5):
        connection = await runner.connect()
        try:
            deadline_at = anyio.current_time() + DEADLINE_SECONDS
            return await execute_on_engine(
                connection, statement, MAX_ROWS, deadline_at, second_opinion=_agree
            )
        finally:
            await connection.close()


def _code(outcome: RawOutcome) -> str:
    return ROWS if isinstance(outcome, RawRows) else outcome.code.value


async def _state(runner: PostgresRaw, scratch: Scratch) -> tuple[object, ...]:
    """The data, the relations, large objects, stored settings, and a new call's session."""
    with anyio.fail_after(10):
        async with await psycopg.AsyncConnection.connect(scratch.admin_dsn) as admin:
            server = await (await admin.execute(SERVER_STATE)).fetchone()
    session = await _run(runner, SESSION_STATE)
    assert isinstance(session, RawRows), session
    return (server, session.rows)


def _leaks(outcome: RawOutcome) -> bool:
    body = msgspec.json.encode(outcome).decode()
    return CANARY in body or "root:" in body


async def test_the_reader_role_sees_a_read_only_utc_session(
    runner: PostgresRaw, scratch: Scratch
) -> None:
    server, session = await _state(runner, scratch)
    assert server == (ROWS_OF_T, "t", 0, 0, 0)
    assert session == [["on", "on", "UTC", "true", scratch.reader]]


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.name)
async def test_every_bypass_ends_as_expected_and_changes_nothing_through_the_runner(
    runner: PostgresRaw, scratch: Scratch, tmp_path: Path, case: Bypass
) -> None:
    paths = paths_in(tmp_path)
    before = await _state(runner, scratch)
    started = anyio.current_time()
    deadline = deadline_for(case.postgres_gated)
    outcome = await _run(runner, spelled(case.postgres, paths), deadline_seconds=deadline)
    assert _code(outcome) == case.postgres_gated, outcome
    if case.postgres_gated == DEADLINE:
        assert anyio.current_time() - started < DEADLINE_SECONDS + 1.0
    assert not _leaks(outcome)
    assert await _state(runner, scratch) == before
    assert paths.untouched()


@pytest.mark.parametrize("case", CORPUS, ids=lambda c: c.name)
async def test_every_bypass_fails_on_the_engine_with_no_parser_gate(
    runner: PostgresRaw, scratch: Scratch, tmp_path: Path, case: Bypass
) -> None:
    paths = paths_in(tmp_path)
    before = await _state(runner, scratch)
    started = anyio.current_time()
    outcome = await _on_the_engine_alone(runner, spelled(case.postgres, paths))
    if case.long:
        assert _code(outcome) == DEADLINE
        assert anyio.current_time() - started < DEADLINE_SECONDS + 1.0
    assert not _leaks(outcome)
    assert await _state(runner, scratch) == before
    assert paths.untouched()


async def test_a_role_that_may_read_server_files_is_refused_at_startup(postgres_dsn: str) -> None:
    info = conninfo_to_dict(postgres_dsn)
    superuser = PostgresSourceSettings(
        host=str(info.get("host") or "127.0.0.1"),
        port=int(info.get("port") or 5432),
        database=str(info.get("dbname") or "postgres"),
        user=str(info.get("user") or "postgres"),
    )
    if info.get("password") is not None:
        pytest.skip("the test server's administrator needs a password; this test reads none")
    with anyio.fail_after(15):
        refused = await open_postgres_raw("main", superuser, context(Path(".")))
    assert "may read or write server files" in refused.failure()


async def test_a_sleeping_statement_is_cancelled_on_the_server_at_the_deadline(
    runner: PostgresRaw, scratch: Scratch
) -> None:
    outcome = await _run(runner, "SELECT pg_sleep(60)", deadline_seconds=DEADLINE_SECONDS)
    assert _code(outcome) == RawRefusalCode.DEADLINE_EXCEEDED.value
    # This test's own scratch database only: other tests may be sleeping in theirs meanwhile.
    active = (
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        " AND application_name LIKE 'sutura run_sql%' AND query LIKE '%pg_sleep%'"
    )
    with anyio.fail_after(5):
        async with await psycopg.AsyncConnection.connect(scratch.admin_dsn) as admin:
            while (await (await admin.execute(active)).fetchone()) != (0,):
                await anyio.sleep(0.02)


async def test_rows_over_the_cap_are_refused_never_cut(runner: PostgresRaw) -> None:
    exactly = await _run(runner, "SELECT g FROM generate_series(1, 5) g", max_rows=5)
    assert isinstance(exactly, RawRows) and len(exactly.rows) == 5
    over = await _run(runner, "SELECT g FROM generate_series(1, 1000000) g", max_rows=5)
    assert _code(over) == RawRefusalCode.TOO_MANY_ROWS.value


async def test_rows_come_back_as_text_with_their_column_names_even_when_none(
    runner: PostgresRaw,
) -> None:
    rows = await _run(
        runner, "SELECT id, secret, NULL::text AS nothing FROM t WHERE id < 2 ORDER BY id"
    )
    assert rows == RawRows(
        columns=["id", "secret", "nothing"], rows=[["0", "kept", None], ["1", "kept", None]]
    )
    empty = await _run(runner, "SELECT id, secret FROM t WHERE false")
    assert empty == RawRows(columns=["id", "secret"], rows=[])


async def test_a_percent_sign_is_text_not_a_placeholder(runner: PostgresRaw) -> None:
    outcome = await _run(runner, "SELECT '100%' AS share, '%s' AS spelled")
    assert outcome == RawRows(columns=["share", "spelled"], rows=[["100%", "%s"]])


async def test_a_value_without_canonical_text_is_refused_whole(runner: PostgresRaw) -> None:
    outcome = await _run(runner, "SELECT ARRAY[1, 2] AS list")
    assert _code(outcome) == RawRefusalCode.VALUE_NOT_SUPPORTED.value


async def test_a_statement_the_server_cannot_parse_comes_back_in_its_own_words(
    runner: PostgresRaw,
) -> None:
    outcome = await _run(runner, "SELEC 1")
    assert isinstance(outcome, RawRefusal) and isinstance(outcome.database_text, str)
    assert outcome.database_text.startswith('syntax error at or near "SELEC"')


async def test_a_server_that_cannot_be_reached_is_unavailable() -> None:
    nowhere = PostgresRaw("main", Target("host=127.0.0.1 port=1 dbname=x connect_timeout=2", None))
    outcome = await _run(nowhere, "SELECT 1")
    assert _code(outcome) == RawRefusalCode.SOURCE_UNAVAILABLE.value


@pytest.mark.parametrize("case", carried_failure_cases(), ids=lambda c: c.name)
async def test_a_hostile_literal_in_a_real_failure_is_quoted_escaped_and_capped(
    runner: PostgresRaw, case: Case
) -> None:
    outcome = await _run(runner, f"SELECT '{doubled(case.value, chr(39))}'::integer")
    assert _code(outcome) == RawRefusalCode.STATEMENT_FAILED.value
    assert_failure_text_is_quoted(outcome)
