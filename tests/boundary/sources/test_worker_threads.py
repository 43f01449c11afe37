"""The worker threads sources run their blocking calls in: results, errors, cancellation,
the bound on threads, idle threads ending, and a job that outlives its event loop."""

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable

import anyio
import anyio.to_thread
import pytest

from sutura.boundary.sources.worker_threads import WorkerThreads

pytestmark = pytest.mark.anyio

BOUND = 10.0
"""No test here waits longer than this for anything."""

_WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def _released(event: threading.Event, value: str) -> str:
    if not event.wait(BOUND):
        raise TimeoutError("never released")
    return value


def _wait_until(predicate: Callable[[], bool]) -> bool:
    stop = time.monotonic() + BOUND
    while not predicate():
        if time.monotonic() > stop:
            return False
        time.sleep(0.01)
    return True


async def test_a_job_returns_its_value_from_another_thread() -> None:
    pool = WorkerThreads("t")
    with anyio.fail_after(BOUND):
        name = await pool.run(lambda: threading.current_thread().name)
    assert name.startswith("t-")
    assert name != threading.current_thread().name


async def test_a_job_raises_its_own_exception_to_the_caller() -> None:
    pool = WorkerThreads("t")

    def fails() -> None:
        raise KeyError("which")

    with anyio.fail_after(BOUND), pytest.raises(KeyError, match="which"):
        await pool.run(fails)


async def test_a_job_sees_the_callers_context_variables() -> None:
    pool = WorkerThreads("t")
    _WHO.set("caller-7")
    with anyio.fail_after(BOUND):
        assert await pool.run(_WHO.get) == "caller-7"


async def test_a_cancelled_caller_is_released_at_once_and_the_thread_serves_again() -> None:
    pool = WorkerThreads("t", limit=1)
    event = threading.Event()
    with anyio.fail_after(BOUND):
        with anyio.move_on_after(0.05) as waited:
            await pool.run(lambda: _released(event, "late"))
        assert waited.cancelled_caught
        event.set()  # the abandoned job ends; its result is dropped
        assert await pool.run(lambda: "next") == "next"
    assert pool.threads == 1


async def test_a_queued_job_whose_caller_left_is_never_started() -> None:
    pool = WorkerThreads("t", limit=1)
    event = threading.Event()
    started: list[str] = []

    def note() -> str:
        started.append("queued")
        return "queued"

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            group.start_soon(pool.run, lambda: _released(event, "first"))
            await anyio.sleep(0.05)  # the only thread is busy with the first job
            with anyio.move_on_after(0.05) as waited:
                await pool.run(note)
            assert waited.cancelled_caught
            event.set()
        assert await pool.run(lambda: "after") == "after"
    assert started == []
    assert pool.threads == 1


async def test_no_more_threads_than_the_limit_and_every_job_is_answered() -> None:
    pool = WorkerThreads("t", limit=2)
    event = threading.Event()
    answers: list[str] = []

    async def ask(value: str) -> None:
        answers.append(await pool.run(lambda: _released(event, value)))

    with anyio.fail_after(BOUND):
        async with anyio.create_task_group() as group:
            for value in "abcde":
                group.start_soon(ask, value)
            await anyio.sleep(0.1)
            assert pool.threads == 2
            event.set()
    assert sorted(answers) == list("abcde")
    assert pool.threads == 2


async def test_free_threads_are_reused_not_multiplied() -> None:
    pool = WorkerThreads("t")
    with anyio.fail_after(BOUND):
        for _ in range(50):
            await pool.run(lambda: None)
    assert pool.threads == 1


async def test_an_idle_thread_ends() -> None:
    pool = WorkerThreads("t", idle_seconds=0.05)
    with anyio.fail_after(BOUND):
        await pool.run(lambda: None)
    assert await anyio.to_thread.run_sync(_wait_until, lambda: pool.threads == 0)
    with anyio.fail_after(BOUND):
        assert await pool.run(lambda: "again") == "again"


def test_a_job_that_outlives_its_event_loop_leaves_its_thread_serving() -> None:
    pool = WorkerThreads("t", limit=1)
    event = threading.Event()

    async def abandon() -> None:
        with anyio.move_on_after(0.05):
            await pool.run(lambda: _released(event, "late"))

    asyncio.run(abandon())  # the loop is closed when the job ends
    event.set()

    async def again() -> str:
        with anyio.fail_after(BOUND):
            return await pool.run(lambda: "served")

    assert asyncio.run(again()) == "served"
    assert pool.threads == 1
