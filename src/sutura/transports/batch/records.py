r"""Numbered records from JSON Lines or one JSON document, read with a byte cap.

*JSON Lines*: one record per line, numbered by its line (1-based); whitespace-only lines are
not records. A line longer than the cap is read past in bounded chunks, never held whole, and
becomes a ``too_long`` record. *A JSON document*: an input whose first non-blank byte is ``[``
is one array whose elements are records 1, 2, …; an input whose first non-blank line is ``{``
without being a whole JSON value is one pretty-printed outcome, record 1. A document is read
whole, so it must fit the cap; an array over it is one ``too_long`` record, and a ``{`` input
that is over the cap or not valid JSON is read again as JSON Lines (so a broken first line
of a JSON Lines file costs that line, not the file).

>>> import io
>>> list(read_records(io.BytesIO(b'{"a": 1}\n\n[2]\n'), 64))
[RawRecord(number=1, data=b'{"a": 1}\n'), RawRecord(number=3, data=b'[2]\n')]
>>> list(read_records(io.BytesIO(b' [{"a": 1}, 2]'), 64))
[RawRecord(number=1, data=b'{"a": 1}'), RawRecord(number=2, data=b'2')]
>>> list(read_records(io.BytesIO(b'"' + b'x' * 99 + b'"\n1\n'), 64))
[RecordError(number=1, problem=<RecordProblem.TOO_LONG: 'too_long'>,
             detail='a line longer than 64 bytes'), RawRecord(number=2, data=b'1\n')]
"""

import io
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple, Protocol

import msgspec

from sutura.transports.batch.problems import RecordError, RecordProblem

DEFAULT_MAX_RECORD_BYTES: Final = 16 * 1024 * 1024
_SKIP_CHUNK: Final = 1 << 16


class RawRecord(NamedTuple):
    """One record's bytes, before decoding, and its 1-based number."""

    number: int
    data: bytes


class _LineReadable(Protocol):
    def readline(self, size: int, /) -> bytes:
        """One line with its newline, or its first ``size`` bytes when it is longer."""
        ...


class Readable(_LineReadable, Protocol):
    """What the reader needs of an input: ``read`` and ``readline`` with a size, in bytes."""

    def read(self, size: int, /) -> bytes:
        """At most ``size`` bytes (fewer only at the end)."""
        ...


class Counted:
    """An input that counts the bytes read through it (what the progress bar shows)."""

    def __init__(self, stream: Readable) -> None:
        self._stream = stream
        self.consumed = 0

    def read(self, size: int, /) -> bytes:
        """As the wrapped stream's ``read``."""
        data = self._stream.read(size)
        self.consumed += len(data)
        return data

    def readline(self, size: int, /) -> bytes:
        """As the wrapped stream's ``readline``."""
        line = self._stream.readline(size)
        self.consumed += len(line)
        return line


class _Replayed:
    """Bytes already read (``head``) read again as lines, then the rest of ``tail``."""

    def __init__(self, head: bytes, tail: _LineReadable) -> None:
        self._head = io.BytesIO(head)
        self._tail = tail
        self.readline: Callable[[int], bytes] = self._replay

    def _replay(self, size: int, /) -> bytes:
        part = self._head.readline(size)
        if part.endswith(b"\n") or len(part) >= size:
            return part
        self.readline = self._tail.readline  # the head is spent: every later line is the tail's
        return part + self._tail.readline(size - len(part))


def read_records(source: Readable, cap: int) -> Iterator[RawRecord | RecordError]:
    """Every record of ``source`` in order; memory is bounded by ``cap`` plus one chunk."""
    head = _first_line(source, cap)
    opening = head.lstrip()[:1]
    if opening == b"[" or (opening == b"{" and not _is_json(head)):
        whole = head + source.read(max(0, cap + 1 - len(head)))
        document = _document(whole, cap)
        if document is not None:
            yield from document
            return
        head = whole
    yield from _lines(_Replayed(head, source), cap)


def _first_line(source: Readable, cap: int) -> bytes:
    """The leading blank lines and the first other line (or its first ``cap + 1`` bytes)."""
    parts: list[bytes] = []
    size = 0
    while size <= cap:
        line = source.readline(cap + 1)
        parts.append(line)
        size += len(line)
        if not line.isspace():
            break
    return b"".join(parts)


def _is_json(data: bytes) -> bool:
    try:
        msgspec.json.decode(data, type=msgspec.Raw)
    except msgspec.DecodeError:
        return False
    return True


def _document(whole: bytes, cap: int) -> list[RawRecord | RecordError] | None:
    """The records of one JSON document, or ``None`` to read ``whole`` as JSON Lines instead."""
    is_array = whole.lstrip().startswith(b"[")
    if len(whole) > cap:
        detail = f"a JSON document longer than {cap} bytes (write JSON Lines instead)"
        too_long = RecordError(number=1, problem=RecordProblem.TOO_LONG, detail=detail)
        return [too_long] if is_array else None
    if not is_array:
        return [RawRecord(1, whole)] if _is_json(whole) else None
    try:
        items = msgspec.json.decode(whole, type=list[msgspec.Raw])
    except msgspec.DecodeError:
        return [RawRecord(1, whole)]  # not JSON: decoding says why (UTF-8 or syntax)
    return [RawRecord(number, bytes(item)) for number, item in enumerate(items, start=1)]


def _lines(source: _LineReadable, cap: int) -> Iterator[RawRecord | RecordError]:
    number = 0
    while line := source.readline(cap + 1):
        number += 1
        if len(line) > cap and not line.endswith(b"\n"):
            _skip_line(source)
            detail = f"a line longer than {cap} bytes"
            yield RecordError(number=number, problem=RecordProblem.TOO_LONG, detail=detail)
        elif not line.isspace():
            yield RawRecord(number, line)


def _skip_line(source: _LineReadable) -> None:
    """Read past the rest of a line in bounded chunks."""
    while (chunk := source.readline(_SKIP_CHUNK)) and not chunk.endswith(b"\n"):
        pass
