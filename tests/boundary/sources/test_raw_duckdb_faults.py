"""run_sql on DuckDB under faults: a statement cannot outlive its deadline or the memory limit.

Each statement runs in a worker process under an address-space cap, killed at the deadline; the
tests provoke both the way they were found (one enormous value) and check that the caller is
answered on time, the worker is gone, the service's own memory did not grow, the next call is
answered, and closing does not wait for a runaway.
"""

import os
import resource
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import duckdb
import pytest

from sutura.boundary.sources.duckdb_raw import MAX_WORKERS, DuckDBRaw, open_duckdb_raw
from sutura.boundary.sources.skeleton import run_raw
from sutura.core.raw.outcome import RawOutcome, RawRefusalCode, RawRows
from sutura.core.settings import DuckDBSourceSettings, LimitsSettings
from tests.boundary.sources.opening import context

pytestmark = pytest.mark.anyio

DEADLINE_SECONDS = 1.0
MARGIN_SECONDS = 1.5
"""How late past the deadline an answer may come on a loaded machine (the kill is immediate)."""
GROWTH_BYTES = 64 * 1024 * 1024
"""How much the test process (the service) may grow while a worker builds gigabytes."""

ENORMOUS_UNTIL_THE_DEADLINE = (
    "SELECT length(string_agg(md5(a.range::VARCHAR), '')) FROM range(100000) a, range(100000) b"
)
"""One value that grows until the deadline (and far past it: 10^10 rows)."""
ENORMOUS_PAST_THE_MEMORY_LIMIT = "SELECT length(repeat('x', 3000000000))"
"""One 3 GB value that DuckDB's own memory limit does not see (an in-process run grew to 5.8 GB)."""


@pytest.fixture(scope="module")
def data_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database file with the table ``t`` of three rows."""
    path = tmp_path_factory.mktemp("raw_duckdb_faults") / "data.duckdb"
    with duckdb.connect(str(path)) as writer:
        writer.execute("CREATE TABLE t AS SELECT range AS id FROM range(3)")
    return path


async def _opened(data_file: Path, memory_limit: str) -> DuckDBRaw:
    limits = LimitsSettings(memory_limit=memory_limit, deadline_seconds=DEADLINE_SECONDS)
    settings = DuckDBSourceSettings(path=str(data_file), threads=1)
    return open_duckdb_raw("main", settings, context(data_file.parent, limits)).unwrap()


@pytest.fixture
async def runner(data_file: Path) -> AsyncIterator[DuckDBRaw]:
    """A runner under the default memory limit (2GB)."""
    opened = await _opened(data_file, "2GB")
    try:
        yield opened
    finally:
        await opened.close()


async def _run(runner: DuckDBRaw, statement: str, deadline: float = DEADLINE_SECONDS) -> RawOutcome:
    with anyio.fail_after(deadline + 10):
        return await run_raw(
            runner,
            statement,
            deadline_seconds=deadline,
            max_rows=10,
            grace_seconds=runner.grace_seconds,
        )


def _code(outcome: RawOutcome) -> str:
    return "rows" if isinstance(outcome, RawRows) else outcome.code.value


def _rss() -> int:
    """The test process's resident memory now, in bytes."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _gone(pids: set[int]) -> bool:
    """Whether every process in ``pids`` has ended (the fork server reaps them), within 2 s."""
    with anyio.move_on_after(2.0):
        while any(_alive(pid) for pid in pids):
            await anyio.sleep(0.02)
    return not any(_alive(pid) for pid in pids)


async def _rows(runner: DuckDBRaw) -> RawOutcome:
    return await _run(runner, "SELECT count(*) AS n FROM t", deadline=5.0)


async def test_an_enormous_value_is_stopped_at_the_deadline_and_its_worker_killed(
    runner: DuckDBRaw,
) -> None:
    await _rows(runner)
    before, rss = set(runner.worker_pids()), _rss()
    started = time.monotonic()
    outcome = await _run(runner, ENORMOUS_UNTIL_THE_DEADLINE)
    took = time.monotonic() - started
    assert _code(outcome) == RawRefusalCode.DEADLINE_EXCEEDED.value, outcome
    assert took < DEADLINE_SECONDS + MARGIN_SECONDS, took
    killed = before - set(runner.worker_pids())
    assert len(killed) == 1, (before, runner.worker_pids())
    assert await _gone(killed)
    assert _rss() - rss < GROWTH_BYTES
    assert await _rows(runner) == RawRows(columns=["n"], rows=[["3"]])


async def test_a_value_past_the_memory_limit_is_resources_exhausted_in_the_worker(
    data_file: Path,
) -> None:
    runner = await _opened(data_file, "256MB")
    try:
        rss = _rss()
        outcome = await _run(runner, ENORMOUS_PAST_THE_MEMORY_LIMIT, deadline=10.0)
        assert _code(outcome) == RawRefusalCode.RESOURCES_EXHAUSTED.value, outcome
        assert _rss() - rss < GROWTH_BYTES
        assert await _rows(runner) == RawRows(columns=["n"], rows=[["3"]])
    finally:
        await runner.close()


async def test_a_worker_killed_mid_statement_is_resources_exhausted_and_replaced(
    runner: DuckDBRaw,
) -> None:
    idle = set(runner.worker_pids())
    outcomes: list[RawOutcome] = []

    async def runaway() -> None:
        outcomes.append(await _run(runner, ENORMOUS_UNTIL_THE_DEADLINE, deadline=30.0))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(runaway)
            busy: set[int] = set()
            while not busy:  # the worker the statement took is the one no longer idle
                await anyio.sleep(0.02)
                busy = idle - set(runner.idle_pids())
            os.kill(busy.pop(), 9)  # as the kernel's OOM killer would
    assert [_code(outcome) for outcome in outcomes] == [RawRefusalCode.RESOURCES_EXHAUSTED.value]
    assert await _rows(runner) == RawRows(columns=["n"], rows=[["3"]])


async def test_closing_does_not_wait_for_a_runaway_statement(data_file: Path) -> None:
    runner = await _opened(data_file, "2GB")
    idle = set(runner.idle_pids())
    outcomes: list[RawOutcome] = []

    async def runaway() -> None:
        outcomes.append(await _run(runner, ENORMOUS_UNTIL_THE_DEADLINE, deadline=30.0))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(runaway)
            while set(runner.idle_pids()) == idle:
                await anyio.sleep(0.02)
            started = time.monotonic()
            workers = set(runner.worker_pids())
            await runner.close()
            closed = time.monotonic() - started
    assert closed < 1.0, closed
    assert [_code(outcome) for outcome in outcomes] == [RawRefusalCode.SOURCE_UNAVAILABLE.value]
    assert await _gone(workers)


async def test_eight_concurrent_enormous_values_run_in_at_most_four_workers_all_stopped_on_time(
    runner: DuckDBRaw,
) -> None:
    rss = _rss()
    outcomes: list[RawOutcome] = []
    busy_seen: list[int] = []

    async def runaway() -> None:
        outcomes.append(await _run(runner, ENORMOUS_UNTIL_THE_DEADLINE))

    started = time.monotonic()
    with anyio.fail_after(10):
        async with anyio.create_task_group() as tasks:
            for _ in range(8):
                tasks.start_soon(runaway)
            while len(outcomes) < 8:
                busy_seen.append(len(runner.worker_pids()) - len(runner.idle_pids()))
                await anyio.sleep(0.02)
    took = time.monotonic() - started
    assert [_code(outcome) for outcome in outcomes] == [RawRefusalCode.DEADLINE_EXCEEDED.value] * 8
    assert took < DEADLINE_SECONDS + MARGIN_SECONDS, took
    # Never more than the pool's workers at once, and more than one: they run side by side
    # (sampled every 20 ms, a loaded machine may start the last worker between two samples).
    assert 1 < max(busy_seen) <= MAX_WORKERS, busy_seen
    assert _rss() - rss < GROWTH_BYTES
    assert await _rows(runner) == RawRows(columns=["n"], rows=[["3"]])
