"""The PostgreSQL source: exact text, the row cap, read-only statements, startup, the gate."""

import datetime
import logging
import secrets
import socket
from pathlib import Path

import anyio
import duckdb
import msgspec
import psycopg
import pytest

from sutura.boundary.sources.duckdb import DuckDBSource
from sutura.boundary.sources.postgres import open_postgres, postgres_fault
from sutura.boundary.sources.postgres_connect import read_password
from sutura.boundary.sources.skeleton import CHUNK_ROWS, run_certified
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.outcome.fault import certified_code
from sutura.core.settings import PostgresSourceSettings
from tests.boundary.sources.opening import context
from tests.boundary.sources.postgres_support import (
    opened,
    server_settings,
    statement,
    unique_alias,
)
from tests.postgres import DSN_VAR, require_server
from tests.refusals import expect_refusal

CELLS = """SELECT CAST('0.10' AS DECIMAL(12, 2)), CAST(9223372036854775807 AS BIGINT),
  CAST(-9223372036854775808 AS BIGINT), CAST('2024-02-29' AS DATE), CAST(NULL AS VARCHAR), '',
  true, CAST('-12345678901234567890.123' AS DECIMAL(38, 3)), CAST(0.1 AS DOUBLE PRECISION),
  (SELECT SUM(x) FROM (VALUES (2147483647), (2147483647)) AS t(x)), 'ünï'"""


@pytest.fixture
def server(postgres_dsn: str, monkeypatch: pytest.MonkeyPatch) -> PostgresSourceSettings:
    """Settings that reach the test server."""
    return server_settings(postgres_dsn, monkeypatch)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_cells_are_exact_text_identical_in_form_to_duckdb(
    server: PostgresSourceSettings,
) -> None:
    on_duckdb = DuckDBSource("d", "shared-service-user", duckdb.connect(":memory:"), 1)
    async with opened(server, unique_alias("cells")) as source:
        with anyio.fail_after(10):
            from_postgres = await run_certified(
                source, statement(CELLS), deadline_seconds=5, max_rows=1
            )
            from_duckdb = await run_certified(
                on_duckdb, statement(CELLS), deadline_seconds=5, max_rows=1
            )
    await on_duckdb.close()
    assert from_postgres.unwrap() == from_duckdb.unwrap()
    assert from_postgres.unwrap() == [
        [
            *("0.10", "9223372036854775807", "-9223372036854775808", "2024-02-29", None, ""),
            *("true", "-12345678901234567890.123", "0.1", "4294967294", "ünï"),
        ]
    ]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_bound_values_arrive_as_parameters_of_their_own_type(
    server: PostgresSourceSettings,
) -> None:
    params = statement(
        "SELECT %s + 1, %s, CAST(%s AS DATE) + 1", 41, "it's; --", datetime.date(2024, 2, 28)
    )
    async with opened(server, unique_alias("params")) as source:
        with anyio.fail_after(10):
            outcome = await run_certified(source, params, deadline_seconds=5, max_rows=1)
    assert outcome.unwrap() == [["42", "it's; --", "2024-02-29"]]


CHUNKED = (
    "SELECT i, CASE WHEN i %% 5 = 0 THEN NULL ELSE 'k' || (i %% 3) END, 'x' || i"
    " FROM generate_series(0, %s - 1) AS t(i) ORDER BY i"
)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_rows_fetched_over_several_chunks_are_whole_at_every_chunk_edge(
    server: PostgresSourceSettings,
) -> None:
    async with opened(server, unique_alias("chunks")) as source:
        with anyio.fail_after(20):
            for rows in (CHUNK_ROWS - 1, CHUNK_ROWS, 2 * CHUNK_ROWS, 2 * CHUNK_ROWS + 7):
                expected = [
                    [str(i), None if i % 5 == 0 else f"k{i % 3}", f"x{i}"] for i in range(rows)
                ]
                whole = await run_certified(
                    source, statement(CHUNKED, rows), deadline_seconds=5, max_rows=rows
                )
                assert whole.unwrap() == expected
                over = await run_certified(
                    source, statement(CHUNKED, rows), deadline_seconds=5, max_rows=rows - 1
                )
                expect_refusal(over, RefusalCode.RESULT_TOO_LARGE)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_value_without_canonical_text_past_the_first_chunk_is_refused(
    server: PostgresSourceSettings,
) -> None:
    blob = (
        "SELECT CASE WHEN i < %s THEN NULL ELSE CAST('abc' AS bytea) END"
        " FROM generate_series(0, 10000) AS t(i)"
    )
    async with opened(server, unique_alias("blob")) as source:
        with anyio.fail_after(20):
            outcome = await run_certified(
                source, statement(blob, CHUNK_ROWS + 3), deadline_seconds=5, max_rows=10**6
            )
            after = await run_certified(
                source, statement("SELECT %s", 1), deadline_seconds=5, max_rows=1
            )
    expect_refusal(outcome, RefusalCode.VALUE_NOT_REPRESENTABLE)
    assert after.unwrap() == [["1"]]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_more_rows_than_the_cap_are_refused_and_exactly_the_cap_answered(
    server: PostgresSourceSettings,
) -> None:
    ten = statement("SELECT generate_series(1, %s)", 10)
    endless = statement("SELECT generate_series(1, %s)", 10**10)  # streams: never all fetched
    async with opened(server, unique_alias("cap")) as source:
        with anyio.fail_after(10):
            exact = await run_certified(source, ten, deadline_seconds=5, max_rows=10)
            over = await run_certified(source, endless, deadline_seconds=5, max_rows=9)
            after = await run_certified(source, ten, deadline_seconds=5, max_rows=10)
    assert [row[0] for row in exact.unwrap()] == [str(n) for n in range(1, 11)]
    expect_refusal(over, RefusalCode.RESULT_TOO_LARGE)
    assert after == exact


@pytest.mark.postgres
@pytest.mark.anyio
async def test_each_statement_runs_read_only_with_the_deadline_as_statement_timeout(
    server: PostgresSourceSettings,
) -> None:
    settings = statement(
        "SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'),"
        " current_setting('TimeZone')"
    )
    async with opened(server, unique_alias("settings")) as source:
        with anyio.fail_after(10):
            outcome = await run_certified(source, settings, deadline_seconds=20, max_rows=1)
    read_only, timeout, zone = outcome.unwrap()[0]
    assert (read_only, zone) == ("on", "UTC")
    assert timeout is not None and timeout.endswith("ms") and 19_000 < int(timeout[:-2]) < 20_000


@pytest.mark.postgres
@pytest.mark.anyio
async def test_whatever_a_statement_changes_is_rolled_back(
    server: PostgresSourceSettings, postgres_dsn: str
) -> None:
    # lo_create passes READ ONLY; the ROLLBACK that ends every answer still undoes it.
    async with opened(server, unique_alias("rollback")) as source:
        with anyio.fail_after(10):
            lo_create = statement("SELECT lo_create(0)")
            created = await run_certified(source, lo_create, deadline_seconds=5, max_rows=1)
            async with await psycopg.AsyncConnection.connect(postgres_dsn) as admin:
                cursor = await admin.execute(
                    "SELECT count(*) FROM pg_largeobject_metadata WHERE oid = %s::oid",
                    (created.unwrap()[0][0],),
                )
                assert await cursor.fetchone() == (0,)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_canary_in_the_driver_message_reaches_the_log_and_never_the_refusal(
    server: PostgresSourceSettings, caplog: pytest.LogCaptureFixture
) -> None:
    canary = f"canary-{secrets.token_hex(6)}"
    caplog.set_level(logging.WARNING, logger="sutura.source")
    async with opened(server, unique_alias("canary")) as source:
        with anyio.fail_after(10):
            bad = statement("SELECT CAST(%s AS integer)", canary)
            outcome = await run_certified(source, bad, deadline_seconds=5, max_rows=1)
    refusal = expect_refusal(outcome, RefusalCode.SOURCE_REFUSED)
    assert canary not in msgspec.json.encode(refusal).decode() + repr(refusal)
    assert canary in _logged(caplog)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_startup_failure_names_host_port_and_database_and_logs_the_driver_message(
    server: PostgresSourceSettings, caplog: pytest.LogCaptureFixture
) -> None:
    canary = f"canary_{secrets.token_hex(6)}"
    caplog.set_level(logging.ERROR, logger="sutura.source")
    unknown_role = msgspec.structs.replace(server, user=canary, password_env=None)
    with anyio.fail_after(15):
        opened = await open_postgres("main", unknown_role, context(Path(".")))
    sentence = opened.failure()
    assert f"{server.host}:{server.port}/{server.database}" in sentence
    assert canary not in sentence
    assert canary in _logged(caplog)


@pytest.mark.anyio
async def test_an_unreachable_server_at_startup_is_one_sentence_without_driver_text() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = PostgresSourceSettings(host="127.0.0.1", port=port, database="shop")
    with anyio.fail_after(15):
        opened = await open_postgres("main", settings, context(Path(".")))
    assert opened.failure() == (
        f"source main: cannot connect to PostgreSQL at 127.0.0.1:{port}/shop (details in the log)"
    )


def test_the_password_comes_from_the_named_variable_or_file_never_the_settings(
    tmp_path: Path,
) -> None:
    environ = {"SHOP_PASSWORD": "from env"}
    (tmp_path / "secret").write_text("from file\n", encoding="utf-8")
    by_env = PostgresSourceSettings(password_env="SHOP_PASSWORD")
    by_file = PostgresSourceSettings(password_file="secret")
    assert read_password(by_env, tmp_path, environ).unwrap() == "from env"
    assert read_password(by_file, tmp_path, environ).unwrap() == "from file"
    assert read_password(PostgresSourceSettings(), tmp_path, environ).unwrap() is None


def test_the_password_variable_is_looked_up_in_the_environment_given_not_the_process_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_PASSWORD", "from the process")
    settings = PostgresSourceSettings(password_env="SHOP_PASSWORD")
    given = read_password(settings, tmp_path, {"SHOP_PASSWORD": "given"})
    assert given.unwrap() == "given"
    missing = read_password(settings, tmp_path, {})
    assert missing.failure() == "the environment variable SHOP_PASSWORD is not set"


@pytest.mark.parametrize(
    ("settings", "sentence"),
    [
        (
            PostgresSourceSettings(password_env="SUTURA_NO_SUCH_VARIABLE"),
            "source main: the environment variable SUTURA_NO_SUCH_VARIABLE is not set",
        ),
        (
            PostgresSourceSettings(password_env="A", password_file="b"),
            "source main: set password_env or password_file, not both",
        ),
        (
            PostgresSourceSettings(sslmode="sometimes"),
            "source main: sslmode must be one of disable, allow, prefer, require, verify-ca,"
            " verify-full",
        ),
    ],
)
@pytest.mark.anyio
async def test_a_settings_problem_stops_startup_before_connecting(
    settings: PostgresSourceSettings, sentence: str, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        opened = await open_postgres("main", settings, context(tmp_path))
    assert opened.failure() == sentence


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (psycopg.errors.QueryCanceled(), RefusalCode.DEADLINE_EXCEEDED),
        (psycopg.errors.AdminShutdown(), RefusalCode.SOURCE_UNAVAILABLE),
        (psycopg.errors.CannotConnectNow(), RefusalCode.SOURCE_UNAVAILABLE),
        (psycopg.errors.TooManyConnections(), RefusalCode.SOURCE_UNAVAILABLE),
        (psycopg.OperationalError("server closed the connection"), RefusalCode.SOURCE_UNAVAILABLE),
        (psycopg.errors.OutOfMemory(), RefusalCode.RESOURCES_EXHAUSTED),
        (psycopg.errors.DiskFull(), RefusalCode.RESOURCES_EXHAUSTED),
        (psycopg.errors.ConfigurationLimitExceeded(), RefusalCode.RESOURCES_EXHAUSTED),
        (psycopg.errors.InsufficientPrivilege(), RefusalCode.SOURCE_REFUSED),
        (psycopg.errors.ReadOnlySqlTransaction(), RefusalCode.SOURCE_REFUSED),
        (psycopg.errors.UndefinedTable(), RefusalCode.SOURCE_REFUSED),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_driver_errors_map_to_refusals_by_sqlstate(error: psycopg.Error, code: RefusalCode) -> None:
    classified = postgres_fault(error)
    assert classified is not None and certified_code(classified.fault) is code


def test_without_a_server_postgres_tests_skip_with_a_reason_and_fail_under_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(DSN_VAR, f"postgresql://nobody@127.0.0.1:{port}/nowhere")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=f"no PostgreSQL server at 127.0.0.1:{port}"):
        require_server()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI requires PostgreSQL"):
        require_server()


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(r.getMessage() for r in caplog.records if r.name == "sutura.source")


@pytest.mark.postgres
@pytest.mark.anyio
async def test_every_pooled_connection_reads_in_the_catalog_time_zone(
    server: PostgresSourceSettings,
) -> None:
    zone = statement("SELECT current_setting('TimeZone')")
    day = statement("SELECT CAST(DATE_TRUNC('day', TIMESTAMPTZ '2024-02-01 03:00:00+00') AS DATE)")
    async with opened(server, unique_alias("zone"), time_zone="America/Los_Angeles") as source:
        with anyio.fail_after(10):
            shown = await run_certified(source, zone, deadline_seconds=5, max_rows=1)
            bucket = await run_certified(source, day, deadline_seconds=5, max_rows=1)
    assert shown.unwrap() == [["America/Los_Angeles"]]
    assert bucket.unwrap() == [["2024-01-31"]]
