"""``sutura render --jobs``: worker processes, driven the way a user runs them, and their faults.

Every wait is bounded. The process tree is read from ``/proc`` (Linux), where CI runs.
"""

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sutura.transports.batch.stream import PARALLEL_AFTER_BYTES
from tests.transports.batch.samples import (
    INTERRUPTIBLE_SUTURA,
    SUTURA,
    jsonl,
    outcomes,
    process_state,
    render_cli,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists(),
        reason="the process tree is read from /proc/<pid>/task/<tid>/children (Linux)",
    ),
]

_BOUND_SECONDS = 60


def _large() -> bytes:
    """Past the threshold where workers start, with invalid records all through it."""
    block = jsonl(outcomes()) + b"not json\n" + b'"caf\xe9"\n'
    return block * (PARALLEL_AFTER_BYTES * 3 // len(block) + 1)


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid``."""
    children = _children(pid)
    return children + [below for child in children for below in _descendants(child)]


def _workers(pid: int) -> list[int]:
    """The processes two levels under ``pid``: its workers, under the fork server (beside
    which runs the resource tracker that ``multiprocessing`` starts)."""
    return [worker for child in _children(pid) for worker in _children(child)]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(FileNotFoundError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(FileNotFoundError):
                found += map(int, Path(f"/proc/{pid}/task/{task}/children").read_text().split())
    return found


def _alive(pid: int) -> bool:
    return process_state(pid) not in (None, "Z")


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + _BOUND_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_jobs_give_the_same_output_errors_and_exit_as_one_process(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(_large())
    alone = render_cli("--jobs", "1", str(source))
    assert alone.returncode == 1
    assert alone.stderr.count(b"\n") > 1000
    for jobs in ("2", "3"):
        done = render_cli("--jobs", jobs, str(source))
        assert (done.returncode, done.stdout, done.stderr) == (1, alone.stdout, alone.stderr)
    piped = render_cli("-", data=source.read_bytes())  # the default: every processor
    assert (piped.returncode, piped.stdout, piped.stderr) == (1, alone.stdout, alone.stderr)


@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_fewer_than_one_job_is_a_usage_error(jobs: str) -> None:
    done = render_cli("--jobs", jobs, "-", data=b"")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"sutura: render: --jobs must be at least 1\n"


def _started(command: list[str], tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path, list[int]]:
    """``command`` (``sutura render --jobs 2 --out OUT -``) fed from a pipe until its worker
    processes run; its stderr goes to a file (a pipe nobody reads would stop it), ``OUT`` to
    the directory it returns, which holds nothing else."""
    out = tmp_path / "out"
    out.mkdir()
    with (tmp_path / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            [*command, "render", "--jobs", "2", "--out", str(out / "out.txt"), "-"],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
    assert process.stdin is not None
    process.stdin.write(_large())
    process.stdin.flush()
    _wait_for(lambda: len(_workers(process.pid)) >= 1, "a worker process")
    return process, out, _descendants(process.pid)


def _finish(process: subprocess.Popen[bytes], tmp_path: Path) -> list[str]:
    """The last lines ``process`` wrote to stderr, once it exited (its input closed)."""
    assert process.stdin is not None
    with contextlib.suppress(BrokenPipeError):
        process.stdin.close()
    process.wait(timeout=_BOUND_SECONDS)
    return (tmp_path / "stderr").read_text().splitlines()[-2:]


def test_a_killed_worker_is_a_named_failure_and_leaves_no_partial_file(tmp_path: Path) -> None:
    process, out, tree = _started(SUTURA, tmp_path)
    os.kill(_workers(process.pid)[-1], signal.SIGKILL)
    with contextlib.suppress(BrokenPipeError):
        assert process.stdin is not None
        process.stdin.write(_large())  # more work for the broken pool
    last = _finish(process, tmp_path)
    assert process.returncode == 1
    assert last[-1] == (
        "sutura: render: a rendering worker process stopped before it finished; the output "
        "is incomplete (--jobs 1 renders in one process)"
    )
    assert list(out.iterdir()) == []
    _wait_for(lambda: not any(map(_alive, tree)), "every worker process to exit")


def test_a_killed_reader_leaves_no_worker_process_behind(tmp_path: Path) -> None:
    process, _, tree = _started(SUTURA, tmp_path)
    process.kill()
    _finish(process, tmp_path)
    _wait_for(lambda: not any(map(_alive, tree)), "every worker process to exit")


@pytest.mark.parametrize("group", [False, True], ids=["reader", "whole-group"])
def test_an_interrupted_run_with_workers_stops_them_all(tmp_path: Path, group: bool) -> None:
    """Ctrl-C on a terminal reaches the whole group; ``kill -INT`` only the reader."""
    process, out, tree = _started(INTERRUPTIBLE_SUTURA, tmp_path)
    if group:
        os.killpg(process.pid, signal.SIGINT)
    else:
        process.send_signal(signal.SIGINT)
    last = _finish(process, tmp_path)
    assert process.returncode == 1
    assert last[-1] == "sutura: interrupted"
    assert list(out.iterdir()) == []
    _wait_for(lambda: not any(map(_alive, tree)), "every worker process to exit")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_output_closed_early_stops_the_run_and_every_worker(tmp_path: Path, jobs: str) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(_large())
    with (tmp_path / "stderr").open("wb") as stderr:
        process = subprocess.Popen(
            [*SUTURA, "render", "--jobs", jobs, str(source)],
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    assert process.stdout is not None
    workers = 0 if jobs == "1" else 1  # with workers, close once one runs
    deadline = time.monotonic() + _BOUND_SECONDS
    while len(_workers(process.pid)) < workers:
        assert time.monotonic() < deadline, "timed out waiting for the worker processes"
        assert process.stdout.read(1 << 16)
    tree = _descendants(process.pid)
    process.stdout.close()
    process.wait(timeout=_BOUND_SECONDS)
    assert process.returncode == 1
    last = (tmp_path / "stderr").read_text().splitlines()[-1]
    assert last == "sutura: render: the output was closed before the end"
    _wait_for(lambda: not any(map(_alive, tree)), "every worker process to exit")
