"""A bound on log volume: the same complaint repeated is logged a few times a minute, not
thousands of times (a descriptor limit reached, a source gone: each request would otherwise
write its own traceback, and the log would grow by megabytes a minute).

Only complaints are limited: a record below ``WARNING`` (an audit record of a call, a
request's line) is always logged whole — each one is a distinct event, never a repetition to
fold, and the audit record's JSON line must stay one JSON document. A record is "the same"
when its logger, level and message template are; its arguments may differ. Within a window of
:data:`WINDOW_SECONDS`, the first :data:`BURST` are logged; the rest are counted, and the next
one logged after the window says how many were dropped.

>>> limit = RepeatLimit(burst=2, window=60.0)
>>> def record(at: float) -> logging.LogRecord:
...     made = logging.LogRecord("sutura.x", logging.ERROR, "f", 1, "boom %s", ("a",), None)
...     made.created = at
...     return made
>>> [limit.filter(record(t)) for t in (0.0, 1.0, 2.0, 3.0)]
[True, True, False, False]
>>> late = record(61.0)
>>> limit.filter(late), late.getMessage()
(True, 'boom a (2 more like this in the last 61 s were not logged)')
>>> def audited(at: float) -> logging.LogRecord:
...     made = logging.LogRecord("sutura.audit", logging.INFO, "f", 1, "%s", ('{"a":1}',), None)
...     made.created = at
...     return made
>>> [limit.filter(audited(t)) for t in (0.0, 1.0, 2.0, 3.0)]
[True, True, True, True]
"""

import logging
from dataclasses import dataclass
from typing import Final

BURST: Final = 5
WINDOW_SECONDS: Final = 60.0


@dataclass(slots=True)
class _Seen:
    since: float
    logged: int
    dropped: int


class RepeatLimit(logging.Filter):
    """Let a repeated record through at most ``burst`` times per ``window`` seconds."""

    def __init__(self, burst: int = BURST, window: float = WINDOW_SECONDS) -> None:
        super().__init__()
        self._burst = burst
        self._window = window
        self._seen: dict[tuple[str, int, str], _Seen] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether to log ``record`` (noting what was dropped before it)."""
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.levelno, str(record.msg))
        seen = self._seen.get(key)
        if seen is None or record.created - seen.since >= self._window:
            dropped = 0 if seen is None else seen.dropped
            since = record.created if seen is None else seen.since
            self._seen[key] = _Seen(since=record.created, logged=1, dropped=0)
            if len(self._seen) > 1024:  # a bounded memory of what was seen
                self._seen = {key: self._seen[key]}
            if dropped:
                elapsed = record.created - since
                note = f"{dropped} more like this in the last {elapsed:.0f} s were not logged"
                record.msg = f"{record.msg} ({note})"
            return True
        if seen.logged < self._burst:
            seen.logged += 1
            return True
        seen.dropped += 1
        return False
