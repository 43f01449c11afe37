"""Rendering on worker processes gives the very output, errors and counts of one process."""

import contextlib
import functools
import io
import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sutura.core.text.untrusted import CELLS
from sutura.core.tool.codec import halves_of
from sutura.transports.batch import pool, stream
from sutura.transports.batch.convert import Target
from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.records import Counted, read_records
from sutura.transports.batch.stream import PARALLEL_AFTER_BYTES, Summary, render_stream
from sutura.transports.batch.workers import (
    WorkerLostError,
    chunks,
    render_chunk,
    rendered_in_order,
)
from tests.core.untrusted_samples import answer
from tests.transports.batch.samples import jsonl, outcomes, process_state

_CAP = 4096


_INVALID = [
    b"not json\n",
    b'"caf\xe9"\n',
    b'"' + b"x" * (_CAP + 10) + b'"\n',
    json.dumps({"outcome": "answer", "columns": ["\ud800"], "rows": []}).encode() + b"\n",
    b'{"outcome": "answer", "columns": [1]}\n',
    b"   \n",
]
"""One line of every kind of invalid record, and a blank one (no record at all)."""


def _mixed() -> bytes:
    """Valid outcomes (the untrusted corpus among them) between every kind of invalid record."""
    good = jsonl(outcomes())
    corpus = b"".join(
        halves_of(answer([case.value, "n"], [[case.value, None], ["", case.value]])).structured
        + b"\n"
        for case in CELLS
        if "surrogate" not in case.name
    )
    return b"".join(good + corpus + line for line in _INVALID) * 40


Run = tuple[bytes, list[RecordError], Summary, tuple[int, int]]


def _run(
    data: bytes,
    *,
    target: Target = Target.TEXT,
    jobs: int = 1,
    parallel_after: int = PARALLEL_AFTER_BYTES,
) -> Run:
    """The output, the errors, the summary and the last progress call of one run."""
    sink, errors, progress = io.BytesIO(), list[RecordError](), list[tuple[int, int]]()
    summary = render_stream(
        io.BytesIO(data),
        sink,
        target=target,
        max_record_bytes=_CAP,
        on_invalid=errors.append,
        on_progress=lambda consumed, records: progress.append((consumed, records)),
        jobs=jobs,
        parallel_after=parallel_after,
    )
    return sink.getvalue(), errors, summary, progress[-1]


def test_workers_render_byte_identical_output_with_the_same_errors_in_order() -> None:
    data = _mixed()
    alone = _run(data)
    assert alone[2].invalid >= 5 * 40 and alone[2].rendered > 1000
    assert {e.problem for e in alone[1]} == set(RecordProblem)
    assert _run(data, jobs=2, parallel_after=0) == alone
    assert _run(data, jobs=3, parallel_after=len(data) // 3) == alone


def test_an_input_within_the_threshold_never_starts_a_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_pool(*args: object, **kwargs: object) -> None:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(pool, "start", no_pool)
    data = jsonl(outcomes())
    assert _run(data, jobs=2, parallel_after=len(data)) == _run(data)
    with pytest.raises(AssertionError, match="a worker pool was started"):
        _run(data + data, jobs=2, parallel_after=len(data))


def test_small_chunks_come_back_in_input_order_through_a_full_window() -> None:
    data = _mixed()
    counted = Counted(io.BytesIO(data))
    pieces = list(chunks(read_records(counted, _CAP), counted, size=2048))
    assert len(pieces) > 100
    expected = [render_chunk(piece.items, Target.TEXT) for piece in pieces]
    done = list(rendered_in_order(iter(pieces), Target.TEXT, jobs=2))
    assert [rendered for rendered, _ in done] == expected
    assert [consumed for _, consumed in done] == [piece.consumed for piece in pieces]
    assert done[-1][1] == len(data)


def test_the_json_target_is_the_same_on_workers() -> None:
    data = _mixed()
    alone = _run(data, target=Target.JSON)
    assert _run(data, target=Target.JSON, jobs=2, parallel_after=0) == alone


_LINES = [
    *(line + b"\n" for line in jsonl(outcomes()).splitlines()),
    *_INVALID,
    b"\n",
    jsonl(outcomes()[:1]).rstrip(b"\n") + b"\r\n",
]


@settings(max_examples=25, deadline=None)  # each example starts a pool of worker processes
@given(
    picks=st.lists(st.integers(0, len(_LINES) - 1), max_size=300),
    last_newline=st.booleans(),
    parallel_after=st.integers(0, 4096),
    size=st.integers(1, 8192),
)
def test_any_mix_of_records_renders_the_same_on_workers_at_any_cut(
    picks: list[int], last_newline: bool, parallel_after: int, size: int
) -> None:
    data = b"".join(_LINES[pick] for pick in picks)
    if not last_newline:
        data = data.rstrip(b"\n")
    with _chunked(size):
        assert _run(data, jobs=2, parallel_after=parallel_after) == _run(data)


def _chunked(size: int) -> "contextlib.AbstractContextManager[object]":
    """Chunks of ``size`` bytes of records for the block (many chunks from a small input)."""
    return mock.patch.object(stream, "chunks", functools.partial(chunks, size=size))


_SENDING = "pipe_write"
"""What ``/proc/<pid>/wchan`` names (``pipe_write``, ``anon_pipe_write``) while a process is
blocked writing to a full pipe."""


@pytest.mark.skipif(
    not Path(f"/proc/{os.getpid()}/wchan").exists(),
    reason="where a process waits is read from /proc/<pid>/wchan (Linux)",
)
def test_a_worker_killed_while_it_sends_a_rendering_back_is_named_and_the_rest_stop() -> None:
    """Nobody reads the workers' renderings (each larger than a pipe holds) until one worker,
    blocked in the middle of sending, is killed: the run is a named loss, not a wait for ever."""
    data = _mixed()
    counted = Counted(io.BytesIO(data))
    pieces = chunks(read_records(counted, _CAP), counted)
    before = _children()
    results = rendered_in_order(pieces, Target.TEXT, jobs=2)
    next(results)
    workers = sorted(_children() - before)
    assert len(workers) == 2
    os.kill(_blocked_sending(workers), signal.SIGKILL)
    lost: list[BaseException] = []
    reader = threading.Thread(target=_drain, args=(results, lost), daemon=True)
    reader.start()
    reader.join(timeout=60)
    assert not reader.is_alive(), "the reading process waits for a dead worker"
    assert len(lost) == 1 and isinstance(lost[0], WorkerLostError)
    assert str(lost[0]) == "a rendering worker process stopped before it finished"
    assert not _children() & set(workers)


def _children() -> set[int]:
    """This process's live child processes started by :mod:`multiprocessing`."""
    return {pid for child in multiprocessing.active_children() if (pid := child.pid) is not None}


def _wchan(pid: int) -> str:
    with contextlib.suppress(FileNotFoundError):
        return Path(f"/proc/{pid}/wchan").read_text()
    return ""


def _blocked_sending(workers: list[int]) -> int:
    """The first of ``workers`` seen blocked writing to a full pipe."""
    deadline = time.monotonic() + 60
    while True:
        waits = {pid: _wchan(pid) for pid in workers}
        blocked = [pid for pid, where in waits.items() if _SENDING in where]
        if blocked:
            return blocked[0]
        if all(where == "0" and process_state(pid) == "S" for pid, where in waits.items()):
            pytest.skip("this kernel does not say where a process waits (/proc/<pid>/wchan is 0)")
        assert time.monotonic() < deadline, "no worker blocked sending within 60 s"
        time.sleep(0.01)


def _drain(results: Iterator[object], lost: list[BaseException]) -> None:
    try:
        for _ in results:
            pass
    except WorkerLostError as error:
        lost.append(error)
