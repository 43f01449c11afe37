"""The audit sink: every audit record appended, one JSON line each, to ``audit.path``.

Records are logged on ``sutura.audit`` (:meth:`~sutura.boundary.service.Service.call`); with
``audit.path`` set, a handler on that logger queues each one, and a writer thread appends them,
in batches gathered for at most :data:`GATHER_SECONDS`, each with the moment it was logged
(``"time"``, UTC), flushing after each batch. So a call never waits on the disk (the service's
event loop only queues), and no record waits long unflushed. The file is opened when the
service opens; when it closes, every record queued is written and flushed before the file is
closed. One that cannot be opened stops the start.
"""

import datetime
import logging
import logging.handlers
import queue
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TextIO

from returns.result import Failure, Result, Success

AUDIT_LOGGER: Final = "sutura.audit"

Records = queue.SimpleQueue[logging.LogRecord]
"""The records logged and not yet written."""

GATHER_SECONDS: Final = 0.02
"""How long the writer lets records gather once it has written all it had: the longest a record
waits to be written, and so at most 50 wake-ups a second, however many calls there are."""


class AuditFileHandler(logging.Handler):
    """Appends each audit record's line to an open file, the time it was logged first;
    flushes once nothing more is waiting in ``pending``."""

    def __init__(self, stream: TextIO, pending: Records) -> None:
        super().__init__(logging.INFO)
        self._stream = stream
        self._pending = pending

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record's line (already one JSON object); flush if it was the last."""
        try:
            moment = datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC)
            stamp = moment.isoformat(timespec="milliseconds")
            line = record.getMessage()
            self._stream.write(f'{{"time":"{stamp}",{line[1:]}\n')
            if self._pending.empty():
                self._stream.flush()
        except Exception:
            self.handleError(record)

    def flush(self) -> None:
        """Flush what was written."""
        self._stream.flush()


class _Queueing(logging.handlers.QueueHandler):
    """Queues the record itself: its line is an immutable argument and the writer reads only
    that and ``created``, so the copy ``QueueHandler`` makes for other handlers is not needed."""

    def prepare(self, record: logging.LogRecord) -> logging.LogRecord:
        """The record, as logged."""
        return record


class _Gathering(logging.handlers.QueueListener):
    """A listener that, with nothing left to write, waits :data:`GATHER_SECONDS` before it
    waits on the queue: woken for every record, the thread would take the interpreter lock
    from the event loop once per call; this way it does so once per batch."""

    def __init__(self, pending: Records, writer: logging.Handler) -> None:
        super().__init__(pending, writer)
        self._pending = pending

    def dequeue(self, block: bool) -> logging.LogRecord:
        """The next record, after a pause when there is none."""
        if block and self._pending.empty():
            time.sleep(GATHER_SECONDS)
        return self._pending.get(block)


@contextmanager
def audit_sink(path: Path | None) -> Iterator[Result[None, str]]:
    """Append the audit records of the block to ``path`` (nothing when it is None), or why
    the file cannot be opened; every record is in the file, flushed, when the block ends."""
    if path is None:
        yield Success(None)
        return
    try:
        stream = path.open("a", encoding="utf-8", newline="\n")
    except OSError as err:
        yield Failure(f"audit.path: cannot open {path} for appending ({err.strerror})")
        return
    pending: Records = queue.SimpleQueue()
    writer = AuditFileHandler(stream, pending)
    listener = _Gathering(pending, writer)
    logger = logging.getLogger(AUDIT_LOGGER)
    handler = _Queueing(pending)
    previous = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    listener.start()
    logger.addHandler(handler)
    try:
        yield Success(None)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        listener.stop()  # writes everything queued before it, then the thread ends
        _write_stragglers(pending, writer)
        stream.close()


def _write_stragglers(pending: Records, writer: AuditFileHandler) -> None:
    """Write what another thread queued after the writer's last record (its ``stop``)."""
    while not pending.empty():
        writer.handle(pending.get_nowait())
    writer.flush()
