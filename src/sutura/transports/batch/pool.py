"""Worker processes for :mod:`.workers`: each has a pipe of its own for the chunks it is sent
and one for what it sends back, and renders its chunks in the order they came.

Nothing is shared between workers. A worker killed in the middle of sending a result leaves
its half message on its own pipe only, whose one writer is gone: the reading process meets
the pipe's end and names a lost worker. (Workers sharing one result queue, as a standard
process pool does, cannot survive that: the half message and the queue's lock, held by the
dead worker for ever, stop every other worker and the reading process with them.) A worker
exits when its input pipe ends, whether the reading process closed it or died.
"""

import contextlib
import queue
import signal
import threading
from typing import TYPE_CHECKING, Final

from sutura.transports.batch.convert import Target
from sutura.transports.batch.workers import Item, Rendered, WorkerLostError, render_chunk

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.context import ForkServerContext, SpawnContext

    Processes = ForkServerContext | SpawnContext

LOST: Final = "a rendering worker process stopped before it finished"
_STOP_SECONDS: Final = 10.0


class Worker:
    """One worker process, its two pipes, and the thread that feeds its input pipe (a send
    blocks while the worker renders, and must not hold up the reading of results)."""

    def __init__(self, context: "Processes", target: Target) -> None:
        their_input, self._input = context.Pipe(duplex=False)
        self._output, their_output = context.Pipe(duplex=False)
        self._process = context.Process(
            target=serve, args=(their_input, their_output, target), daemon=True
        )
        self._process.start()
        their_input.close()  # the worker holds the only other ends: its death ends them
        their_output.close()
        self._pending: queue.SimpleQueue[list[Item] | None] = queue.SimpleQueue()
        self._feeder = threading.Thread(target=self._feed, name="render-feeder", daemon=True)
        self._feeder.start()

    def submit(self, items: list[Item]) -> None:
        """Send ``items`` to the worker (without waiting for it to take them)."""
        self._pending.put(items)

    def result(self) -> Rendered:
        """The rendering of the oldest chunk sent and not yet answered; raises
        :class:`WorkerLostError` if the worker stopped first."""
        try:
            rendered: Rendered = self._output.recv()
        except (EOFError, OSError) as lost:
            raise WorkerLostError(LOST) from lost
        return rendered

    def stop(self, *, at_once: bool) -> None:
        """End the worker: after its last chunk, or ``at_once`` (``SIGTERM``, then ``SIGKILL``
        if it has not gone within a bound); its pipes closed, its process reaped and released."""
        if at_once:
            self._process.terminate()
        self._pending.put(None)
        self._feeder.join(_STOP_SECONDS)
        self._process.join(_STOP_SECONDS)
        if self._process.exitcode is None:
            self._process.kill()
            self._process.join()
        self._process.close()
        self._output.close()

    def _feed(self) -> None:
        try:
            while (items := self._pending.get()) is not None:
                self._input.send(items)
        except OSError:
            pass  # the worker is gone: the next result() names it
        finally:
            self._input.close()  # the worker's input ends: it exits


def start(jobs: int, target: Target) -> list[Worker]:
    """``jobs`` fresh worker processes rendering for ``target``."""
    context = fresh_processes()
    started: list[Worker] = []
    try:
        started.extend(Worker(context, target) for _ in range(jobs))
    except BaseException:
        for worker in started:
            worker.stop(at_once=True)
        raise
    return started


def serve(chunks: "Connection", results: "Connection", target: Target) -> None:
    """A worker's life: render each chunk received and send it back, until the input ends.
    Ctrl-C is left to the reading process, which stops its workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(EOFError, OSError):  # the reading process closed or is gone
        while True:
            items: list[Item] = chunks.recv()
            results.send(render_chunk(items, target))


def warm_up() -> None:
    """Start the fork server now (POSIX), so its imports overlap the reading process's work;
    a later :func:`start` then forks workers from it at once."""
    if fresh_processes().get_start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.ensure_running()


def fresh_processes() -> "Processes":
    """Workers forked from a fresh server process that has imported this module (POSIX), or
    spawned fresh: never a copy of the reading process, and no re-import of its ``__main__``."""
    import multiprocessing

    if "forkserver" in multiprocessing.get_all_start_methods():
        server = multiprocessing.get_context("forkserver")
        server.set_forkserver_preload([__name__])
        return server
    return multiprocessing.get_context("spawn")
