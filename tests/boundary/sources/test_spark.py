"""The Spark source: exact text, bound values, the row cap, the deadline, sessions, quiet logs."""

import datetime
import logging
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import anyio
import duckdb
import msgspec
import pytest
from returns.result import Result

from sutura.boundary.sources.duckdb import DuckDBSource
from sutura.boundary.sources.skeleton import TextRows, run_certified
from sutura.core.nouns.refusal import Refusal, RefusalCode
from sutura.core.outcome.fault import certified_code
from sutura.core.settings import SparkSourceSettings
from tests.boundary.sources.opening import context
from tests.refusals import expect_refusal
from tests.services import problems_opening
from tests.spark_server import (
    cancelled_on_the_server,
    ghost_config,
    opened,
    require_client,
    require_server,
    spy_on_fetches,
    statement,
)

if TYPE_CHECKING:
    from sutura.boundary.sources.spark import SparkSource

pytestmark = pytest.mark.filterwarnings(r"ignore:\[RETRIES_EXCEEDED\]:UserWarning")

CELLS = """SELECT CAST('0.10' AS DECIMAL(12, 2)), CAST(9223372036854775807 AS BIGINT),
  CAST(-9223372036854775808 AS BIGINT), CAST('2024-02-29' AS DATE), CAST(NULL AS STRING), '',
  true, CAST('-12345678901234567890.123' AS DECIMAL(38, 3)), CAST(0.1 AS DOUBLE),
  (SELECT SUM(x) FROM (VALUES (2147483647), (2147483647)) AS t(x)), 'ünï'"""
SLOW = "SELECT sum(id % 7) FROM range(0, ?)"
# One task per executor slot of the test server (local[2]): it ends only once nothing else holds
# them, so an interrupted query still running on the server makes it miss its bound.
FREE = "SELECT count(*) FROM range(0, ?, 1, 2)"


async def slots_are_free(source: "SparkSource") -> None:
    """A statement needing the server's executor slots answers promptly (the test fails if an
    interrupted query still holds them)."""
    with anyio.fail_after(30):
        outcome = await run_certified(
            source, statement(FREE, 10**6), deadline_seconds=25, max_rows=1
        )
    assert outcome.unwrap() == [["1000000"]]


@pytest.fixture
def remote() -> str:
    """The address of the Spark test server (skips without one, fails in CI)."""
    return require_server()


@pytest.fixture
def client() -> None:
    """The Spark Connect client is installed (skips without it, fails in CI)."""
    require_client()


@pytest.mark.spark
@pytest.mark.anyio
async def test_cells_are_exact_text_identical_in_form_to_duckdb(remote: str) -> None:
    on_duckdb = DuckDBSource("d", "shared-service-user", duckdb.connect(":memory:"), 1)
    async with opened(remote) as source:
        with anyio.fail_after(30):
            from_spark = await run_certified(
                source, statement(CELLS), deadline_seconds=20, max_rows=1
            )
            from_duckdb = await run_certified(
                on_duckdb, statement(CELLS), deadline_seconds=5, max_rows=1
            )
    await on_duckdb.close()
    assert from_spark.unwrap() == from_duckdb.unwrap()
    assert from_spark.unwrap() == [
        [
            *("0.10", "9223372036854775807", "-9223372036854775808", "2024-02-29", None, ""),
            *("true", "-12345678901234567890.123", "0.1", "4294967294", "ünï"),
        ]
    ]


@pytest.mark.spark
@pytest.mark.anyio
async def test_a_value_without_canonical_text_is_refused_whole(remote: str) -> None:
    kinds = ("SELECT X'0102'", "SELECT array(1, 2)", "SELECT INTERVAL '1' MONTH")
    async with opened(remote) as source:
        with anyio.fail_after(30):
            outcomes = [
                await run_certified(source, statement(sql), deadline_seconds=20, max_rows=1)
                for sql in kinds
            ]
    for outcome in outcomes:
        expect_refusal(outcome, RefusalCode.VALUE_NOT_REPRESENTABLE)


@pytest.mark.spark
@pytest.mark.anyio
async def test_bound_values_arrive_as_typed_literals_and_a_quoted_question_mark_is_a_name(
    remote: str,
) -> None:
    params = statement(
        "SELECT ? + 1 AS `a?b`, ?, date_add(?, 1)", 41, "it's; --", datetime.date(2024, 2, 28)
    )
    async with opened(remote) as source:
        with anyio.fail_after(30):
            outcome = await run_certified(source, params, deadline_seconds=20, max_rows=1)
    assert outcome.unwrap() == [["42", "it's; --", "2024-02-29"]]


@pytest.mark.spark
@pytest.mark.anyio
async def test_more_rows_than_the_cap_are_refused_and_exactly_the_cap_answered(
    remote: str,
) -> None:
    ten = statement("SELECT explode(sequence(1, ?))", 10)
    endless = statement("SELECT id FROM range(0, ?)", 10**12)  # only max_rows + 1 are fetched
    async with opened(remote) as source:
        with anyio.fail_after(30):
            exact = await run_certified(source, ten, deadline_seconds=20, max_rows=10)
            over = await run_certified(source, endless, deadline_seconds=20, max_rows=9)
    assert [row[0] for row in exact.unwrap()] == [str(n) for n in range(1, 11)]
    expect_refusal(over, RefusalCode.RESULT_TOO_LARGE)


@pytest.mark.spark
@pytest.mark.anyio
async def test_the_session_is_utc_and_ansi_whatever_the_zone_of_this_machine(
    remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    zoned = statement(
        "SELECT TIMESTAMP '2024-01-02 03:04:05', TIMESTAMP_NTZ '2024-01-02 03:04:05',"
        " current_timezone()"
    )
    overflow = statement("SELECT CAST(2147483647 AS INT) + CAST(? AS INT)", 1)
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        async with opened(remote) as source:
            with anyio.fail_after(30):
                outcome = await run_certified(source, zoned, deadline_seconds=20, max_rows=1)
                overflowed = await run_certified(source, overflow, deadline_seconds=20, max_rows=1)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert outcome.unwrap() == [["2024-01-02T03:04:05+00:00", "2024-01-02T03:04:05", "UTC"]]
    expect_refusal(overflowed, RefusalCode.SOURCE_REFUSED)  # an error, never a wrapped number


@pytest.mark.spark
@pytest.mark.anyio
async def test_a_slow_query_is_interrupted_on_the_server_at_the_deadline(
    remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    returned, done = spy_on_fetches(monkeypatch)
    async with opened(remote) as source:
        with anyio.fail_after(10):
            outcome = await run_certified(
                source, statement(SLOW, 10**13), deadline_seconds=1, max_rows=1
            )
        expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
        assert await anyio.to_thread.run_sync(done.wait, 20)
        assert cancelled_on_the_server(returned)
        with anyio.fail_after(20):
            after = await run_certified(
                source, statement("SELECT ?", 1), deadline_seconds=15, max_rows=1
            )
        await slots_are_free(source)
    assert after.unwrap() == [["1"]]


@pytest.mark.spark
@pytest.mark.anyio
async def test_a_question_its_caller_cancels_is_interrupted_on_the_server_too(
    remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    returned, done = spy_on_fetches(monkeypatch)
    async with opened(remote) as source:
        with anyio.fail_after(10), anyio.move_on_after(1):
            await run_certified(source, statement(SLOW, 10**13), deadline_seconds=600, max_rows=1)
        assert await anyio.to_thread.run_sync(done.wait, 20)
        await slots_are_free(source)
    assert cancelled_on_the_server(returned)


@pytest.mark.spark
@pytest.mark.anyio
async def test_an_interrupt_the_server_never_confirms_replaces_the_session_and_frees_the_slots(
    remote: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from sutura.boundary.sources import spark

    returned, done = spy_on_fetches(monkeypatch)
    monkeypatch.setattr(spark, "CONFIRM_SECONDS", 2.0)
    caplog.set_level(logging.WARNING, logger="sutura.source")
    async with opened(remote) as source:
        stuck = source._sessions.current()
        assert stuck is not None
        monkeypatch.setattr(stuck, "interruptTag", lambda tag: [])  # as if every one were lost
        with anyio.fail_after(10):
            outcome = await run_certified(
                source, statement(SLOW, 10**13), deadline_seconds=1, max_rows=1
            )
        expect_refusal(outcome, RefusalCode.DEADLINE_EXCEEDED)
        assert await anyio.to_thread.run_sync(done.wait, 20)  # released with its session
        await slots_are_free(source)
        assert source._sessions.current() is not stuck
    assert isinstance(returned[0], Exception)
    assert "did not end within 2 s; replacing the session" in caplog.text


@pytest.mark.spark
@pytest.mark.anyio
@pytest.mark.parametrize("lose", ["released on the server", "stopped on the client"])
async def test_a_lost_session_is_renewed_once_and_the_question_answered(
    remote: str, lose: str
) -> None:
    async with opened(remote) as source:
        session = source._sessions.current()
        assert session is not None
        if lose == "released on the server":  # as after a server restart or an idle timeout
            session.client.release_session()
        else:  # as after a renewal that failed
            session.stop()
        with anyio.fail_after(30):
            outcome = await run_certified(
                source, statement("SELECT ?", 7), deadline_seconds=20, max_rows=1
            )
        assert outcome.unwrap() == [["7"]]
        assert source._sessions.current() is not session


@pytest.mark.spark
@pytest.mark.anyio
async def test_concurrent_questions_share_the_session_and_one_deadline_stops_only_its_own(
    remote: str,
) -> None:
    answers: dict[int, Result[TextRows, Refusal]] = {}
    async with opened(remote) as source:

        async def ask(n: int) -> None:
            query = statement(SLOW, 10**13) if n == 0 else statement("SELECT ? * 2", n)
            answers[n] = await run_certified(
                source, query, deadline_seconds=1 if n == 0 else 20, max_rows=1
            )

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                for n in range(5):
                    group.start_soon(ask, n)
        await slots_are_free(source)
    expect_refusal(answers.pop(0), RefusalCode.DEADLINE_EXCEEDED)
    assert {n: a.unwrap() for n, a in answers.items()} == {n: [[str(2 * n)]] for n in range(1, 5)}


@pytest.mark.spark
@pytest.mark.anyio
async def test_a_closed_source_refuses_as_unavailable(remote: str) -> None:
    async with opened(remote) as source:
        await source.close()
        with anyio.fail_after(5):
            outcome = await run_certified(
                source, statement("SELECT 1"), deadline_seconds=5, max_rows=1
            )
    expect_refusal(outcome, RefusalCode.SOURCE_UNAVAILABLE)


@pytest.mark.spark
@pytest.mark.anyio
async def test_a_canary_in_the_driver_message_reaches_the_log_and_never_the_refusal(
    remote: str, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    canary = f"canary_{secrets.token_hex(6)}"
    caplog.set_level(logging.WARNING, logger="sutura.source")
    async with opened(remote) as source:
        with anyio.fail_after(30):
            outcome = await run_certified(
                source, statement(f"SELECT * FROM `{canary}`"), deadline_seconds=20, max_rows=1
            )
    refusal = expect_refusal(outcome, RefusalCode.SOURCE_REFUSED)
    assert canary not in msgspec.json.encode(refusal).decode() + repr(refusal)
    assert canary in "\n".join(r.getMessage() for r in caplog.records)
    out, err = capfd.readouterr()
    assert canary not in out + err


@pytest.mark.spark
@pytest.mark.slow
def test_the_terminal_shows_driver_text_and_jvm_traces_only_with_verbose(
    remote: str, tmp_path: Path
) -> None:
    canary = f"canary_{secrets.token_hex(6)}"
    env = ghost_config(tmp_path, remote, canary)
    # A script file, as the console script is: with ``python -c`` (no ``__main__.__file__``)
    # pyspark believes it runs doctests and imports its test helpers.
    entry = tmp_path / "sutura_cli.py"
    entry.write_text("import sys\nfrom sutura.root import main\nsys.exit(main())\n")
    script = [sys.executable, str(entry)]
    question = ["query", "ghost_revenue", "--grain", "month", "--from", "2024-01-01"]
    question += ["--to", "2024-04-01"]
    runs = [
        subprocess.run(
            [*script, *flags, *question], env=env, capture_output=True, text=True, timeout=120
        )
        for flags in ([], ["--verbose"])
    ]
    for run in runs:
        assert run.returncode == 1
        assert run.stdout.startswith("refused (source_refused):")
        assert canary not in run.stdout
    assert runs[0].stderr == ""
    assert canary in runs[1].stderr and "JVM stacktrace" in runs[1].stderr


@pytest.mark.anyio
async def test_a_missing_client_refuses_startup_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = ghost_config(tmp_path, "sc://127.0.0.1:15002", "ghost_orders", create=False)
    for name in [m for m in sys.modules if m.startswith(("pyspark", "sutura.boundary.sources.sp"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pyspark", None)
    problems = await problems_opening(env)
    assert problems == [
        "settings: sources.main: source main: kind spark needs the Spark Connect client"
        " (no module pyspark); install it with pip install 'sutura[spark]'"
    ]


@pytest.mark.anyio
async def test_an_unreachable_server_at_startup_is_one_sentence_naming_the_address(
    client: None, capfd: pytest.CaptureFixture[str]
) -> None:
    from sutura.boundary.sources.spark import open_spark

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = SparkSourceSettings(remote=f"sc://127.0.0.1:{port}")
    with anyio.fail_after(30):
        opened_source = await open_spark("main", settings, context(Path(".")))
    assert opened_source.failure() == (
        f"source main: cannot use Spark Connect at sc://127.0.0.1:{port}:"
        " the server cannot be reached (details in the log)"
    )
    assert "Traceback" not in capfd.readouterr().err


def test_the_token_comes_from_the_named_variable_and_never_from_the_address(
    client: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sutura.boundary.sources import spark_session

    secret = f"s3cret={secrets.token_hex(4)}"  # an = cannot even be written in an address
    in_address = SparkSourceSettings(remote=f"sc://h:1/;token={secret[7:]}")
    assert spark_session.connector(in_address, {}, "UTC").failure() == (
        "remote: holds a token; put it in the variable named by token_env"
    )
    named = SparkSourceSettings(remote="sc://h:1/;use_ssl=true", token_env="SPARK_TOKEN")
    assert spark_session.connector(named, {}, "UTC").failure() == (
        "token_env: the environment variable SPARK_TOKEN is not set"
    )
    built: list[object] = []

    def record(builder: object) -> None:
        built.append(builder)
        raise LookupError("recorded")

    fake = SimpleNamespace(builder=SimpleNamespace(channelBuilder=record))
    monkeypatch.setattr(spark_session, "SparkSession", fake)
    with pytest.raises(LookupError):
        spark_session.connector(named, {"SPARK_TOKEN": secret}, "UTC").unwrap()()
    [builder] = built
    assert getattr(builder, "token", None) == secret
    assert str(getattr(builder, "userAgent", "")).startswith("sutura ")


@pytest.mark.parametrize(
    ("remote", "problem"),
    [
        ("http://h:1", "remote: not a Spark Connect address (sc://host:port[/;param=value])"),
        ("sc://h:1/path", "remote: not a Spark Connect address (sc://host:port[/;param=value])"),
    ],
)
def test_an_address_that_is_not_spark_connect_is_refused(
    client: None, remote: str, problem: str
) -> None:
    from sutura.boundary.sources.spark_session import connector

    assert connector(SparkSourceSettings(remote=remote), {}, "UTC").failure() == problem


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"grpc_status_code": "UNAVAILABLE"}, RefusalCode.SOURCE_UNAVAILABLE),
        ({"grpc_status_code": "UNAUTHENTICATED"}, RefusalCode.SOURCE_UNAVAILABLE),
        ({"grpc_status_code": "DEADLINE_EXCEEDED"}, RefusalCode.DEADLINE_EXCEEDED),
        ({"grpc_status_code": "RESOURCE_EXHAUSTED"}, RefusalCode.RESOURCES_EXHAUSTED),
        ({"errorClass": "OPERATION_CANCELED"}, RefusalCode.DEADLINE_EXCEEDED),
        ({"errorClass": "INVALID_HANDLE.SESSION_NOT_FOUND"}, RefusalCode.SOURCE_UNAVAILABLE),
        ({"sql_state": "53200"}, RefusalCode.RESOURCES_EXHAUSTED),
        (
            {"errorClass": "UNSUPPORTED_DATA_TYPE_FOR_ARROW_CONVERSION"},
            RefusalCode.VALUE_NOT_REPRESENTABLE,
        ),
        ({"sql_state": "08003"}, RefusalCode.SOURCE_UNAVAILABLE),
        (
            {"errorClass": "TABLE_OR_VIEW_NOT_FOUND", "sql_state": "42P01"},
            RefusalCode.SOURCE_REFUSED,
        ),
        ({"errorClass": "DIVIDE_BY_ZERO", "sql_state": "22012"}, RefusalCode.SOURCE_REFUSED),
    ],
)
def test_driver_errors_map_to_refusal_codes(
    client: None, fields: dict[str, str], code: RefusalCode
) -> None:
    import grpc
    from pyspark.errors.exceptions.connect import SparkConnectGrpcException

    from sutura.boundary.sources.spark import spark_fault

    error = SparkConnectGrpcException(
        message="m",
        errorClass=fields.get("errorClass"),
        sql_state=fields.get("sql_state"),
        grpc_status_code=grpc.StatusCode[fields.get("grpc_status_code", "INTERNAL")],
    )
    classified = spark_fault(error)
    assert classified is not None and certified_code(classified.fault) is code


def test_a_server_older_than_3_5_is_refused_at_startup(client: None) -> None:
    from sutura.boundary.sources.spark_session import version_problem

    assert version_problem("4.0.1") is None and version_problem("3.5.0") is None
    assert version_problem("3.4.3") == "Spark 3.4.3 is older than 3.5, the first to bind parameters"


def test_the_client_loggers_are_silent_unless_sutura_source_is_verbose(client: None) -> None:
    from pyspark.logger import PySparkLogger

    from sutura.boundary.sources.spark_session import quiet_driver_logs

    source_log = logging.getLogger("sutura.source")
    level = source_log.level
    states: list[bool] = []
    try:
        for verbose in (logging.DEBUG, logging.ERROR):
            source_log.setLevel(verbose)
            quiet_driver_logs()
            states.append(PySparkLogger.getLogger("SQLQueryContextLogger").disabled)
            states.append(logging.getLogger("grpc").disabled)
    finally:
        source_log.setLevel(level)
        quiet_driver_logs()
    assert states == [False, False, True, True]
