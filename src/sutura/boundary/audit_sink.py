"""The audit sink: every audit record appended, one JSON line each, to ``audit.path``.

Records are logged on ``sutura.audit`` (:meth:`~sutura.boundary.service.Service.call`); with
``audit.path`` set, a handler on that logger appends each to the file as it is written, with
the moment it was written first (``"time"``, UTC), and flushes it. The file is opened when the
service opens and closed when it closes; one that cannot be opened stops the start.
"""

import datetime
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final, TextIO

from returns.result import Failure, Result, Success

AUDIT_LOGGER: Final = "sutura.audit"


class AuditFileHandler(logging.Handler):
    """Appends each audit record's line to an open file, the time it was written first."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(logging.INFO)
        self._stream = stream

    def emit(self, record: logging.LogRecord) -> None:
        """Write the record's line (already one JSON object) and flush it."""
        try:
            moment = datetime.datetime.fromtimestamp(record.created, tz=datetime.UTC)
            stamp = moment.isoformat(timespec="milliseconds")
            line = record.getMessage()
            self.acquire()
            try:
                self._stream.write(f'{{"time":"{stamp}",{line[1:]}\n')
                self._stream.flush()
            finally:
                self.release()
        except Exception:
            self.handleError(record)


@contextmanager
def audit_sink(path: Path | None) -> Iterator[Result[None, str]]:
    """Append the audit records of the block to ``path`` (nothing when it is None), or why
    the file cannot be opened."""
    if path is None:
        yield Success(None)
        return
    try:
        stream = path.open("a", encoding="utf-8", newline="\n")
    except OSError as err:
        yield Failure(f"audit.path: cannot open {path} for appending ({err.strerror})")
        return
    logger = logging.getLogger(AUDIT_LOGGER)
    handler = AuditFileHandler(stream)
    previous = logger.level
    if logger.getEffectiveLevel() > logging.INFO:
        logger.setLevel(logging.INFO)
    logger.addHandler(handler)
    try:
        yield Success(None)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        stream.close()
