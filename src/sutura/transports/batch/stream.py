"""A whole input to an output: records in order, invalid ones reported, every record counted.

>>> import io
>>> sink, errors = io.BytesIO(), []
>>> data = b'{"outcome": "refusal", "reason": {"code": "metric_unknown", "status": 404,'
>>> data += b' "detail": "Read the catalog."}}\\nnot json\\n'
>>> render_stream(io.BytesIO(data), sink, on_invalid=errors.append).sentence()
'2 records: 1 rendered, 1 invalid'
>>> sink.getvalue().decode()
'\\\\. record 1\\nrefused (metric_unknown): Read the catalog.\\n'
>>> [error.sentence() for error in errors]
['record 2: not_json: not valid JSON']
"""

from collections.abc import Callable, Iterator
from typing import Final, Protocol

from sutura.core.nouns.frozen import Frozen
from sutura.transports.batch.convert import Target, convert
from sutura.transports.batch.problems import RecordError
from sutura.transports.batch.records import (
    DEFAULT_MAX_RECORD_BYTES,
    Counted,
    RawRecord,
    Readable,
    read_records,
)
from sutura.transports.batch.workers import chunks, rendered_in_order, warm_up

_FLUSH_BYTES: Final = 1 << 20
_PROGRESS_EVERY: Final = 256
PARALLEL_AFTER_BYTES: Final = 4 << 20
"""With several jobs, the input read in this process before worker processes start: a small
input is rendered before workers could have started."""


class Sink(Protocol):
    """Where rendered records go: a binary stream."""

    def write(self, data: bytes, /) -> object:
        """Write all of ``data``."""
        ...


class Summary(Frozen, frozen=True):
    """What one run did: every record is either rendered or invalid."""

    records: int
    rendered: int
    invalid: int

    def sentence(self) -> str:
        """``<n> records: <r> rendered, <i> invalid``."""
        return f"{self.records} records: {self.rendered} rendered, {self.invalid} invalid"


def _ignore(error: RecordError) -> None:
    """No report (the caller reads the summary)."""


def _no_progress(consumed: int, records: int) -> None:
    """No progress display."""


class _Batched:
    """Rendered records gathered into writes of about a mebibyte (fewer, larger system calls)."""

    def __init__(self, sink: Sink) -> None:
        self._sink = sink
        self._pending: list[bytes] = []
        self._size = 0

    def add(self, data: bytes) -> None:
        self._pending.append(data)
        self._size += len(data)
        if self._size >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        self._sink.write(b"".join(self._pending))
        self._pending, self._size = [], 0


def render_stream(
    source: Readable,
    sink: Sink,
    *,
    target: Target = Target.TEXT,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    on_invalid: Callable[[RecordError], None] = _ignore,
    on_progress: Callable[[int, int], None] = _no_progress,
    jobs: int = 1,
    parallel_after: int = PARALLEL_AFTER_BYTES,
) -> Summary:
    """Render every record of ``source`` into ``sink`` in input order; memory stays bounded.

    ``on_invalid`` hears each invalid record as it is met, in input order;
    ``on_progress(bytes_read, records)`` is called every few hundred records and once at the
    end. With ``jobs`` above 1, the input after its first ``parallel_after`` bytes is rendered
    by that many worker processes (:mod:`.workers`); the output is byte-identical.
    """
    counted, output = Counted(source), _Batched(sink)
    records = read_records(counted, max_record_bytes)
    rendered = invalid = 0
    serial = records if jobs <= 1 else _while_under(records, counted, parallel_after)
    for record in serial:
        result = record if isinstance(record, RecordError) else convert(record, target)
        if isinstance(result, RecordError):
            invalid += 1
            on_invalid(result)
        else:
            rendered += 1
            output.add(result)
        if (rendered + invalid) % _PROGRESS_EVERY == 0:
            on_progress(counted.consumed, rendered + invalid)
    if jobs > 1:
        for done, consumed in rendered_in_order(chunks(records, counted), target, jobs):
            for error in done.errors:
                on_invalid(error)
            output.add(done.data)
            rendered, invalid = rendered + done.rendered, invalid + len(done.errors)
            on_progress(consumed, rendered + invalid)
    output.flush()
    on_progress(counted.consumed, rendered + invalid)
    return Summary(records=rendered + invalid, rendered=rendered, invalid=invalid)


def _while_under(
    records: Iterator[RawRecord | RecordError], counted: Counted, limit: int
) -> Iterator[RawRecord | RecordError]:
    """Records while fewer than ``limit`` bytes were read; the rest stay in ``records``. Past a
    quarter of ``limit`` the input is likely large, and the worker processes' start begins."""
    for bound in (limit // 4, limit):
        while counted.consumed < bound:
            record = next(records, None)
            if record is None:
                return
            yield record
        if bound < limit:
            warm_up()
