r"""Both halves of one answer, written as its rows arrive.

A long answer's rows are turned into text a chunk at a time (``boundary/sources/skeleton.py``);
:class:`AnswerWriter` appends each chunk to both halves at once, so no list of every row is
ever held: the text half grows as one string, the structured half as one buffer whose bytes
become the half without a copy, and the answer's rows are read back from those bytes
(:class:`~sutura.core.nouns.rows.WrittenRows`). The halves are byte for byte those
:func:`~sutura.core.tool.codec.outcome_halves` makes of the same answer, refusal included: a
value neither half can carry (a lone surrogate, a row of the wrong width) refuses both.

>>> from sutura.core.nouns.answer import ExecutedAs, MetricDigest, Provenance
>>> from sutura.core.tool.codec import outcome_halves
>>> provenance = Provenance(
...     time_zone="UTC", definition_version="v1", definition_digest="ab",
...     metric_digests=[MetricDigest(metric="m", digest="cd")],
...     executed_as=[ExecutedAs(source="wh", posture="shared-service-user")])
>>> writer = AnswerWriter(["m"])
>>> writer.add([["1"], [None]])
>>> written = writer.finish(provenance).unwrap()
>>> written.halves == outcome_halves(written.answer).unwrap(), written.answer.rows[1]
(True, [None])
"""

import functools
import io
from array import array
from collections.abc import Sequence
from typing import Final, NamedTuple

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.nouns.answer import Answer, Provenance
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.nouns.rows import WrittenRows
from sutura.core.text.render import Row, header_line, table_lines, trailer_text
from sutura.core.tool.codec import Halves, encode

_ROWS: Final = msgspec.json.Encoder()
_SLICE_ROWS: Final = 1024
_UNREPRESENTABLE: Final = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
_BLANK: Final = Provenance(
    definition_version="", definition_digest="", metric_digests=[], time_zone="", executed_as=[]
)


class Written(NamedTuple):
    """An answer and both its halves; its rows are read from its structured half."""

    answer: Answer
    halves: Halves


class AnswerWriter:
    """Both halves of an answer with ``columns``, its rows added a chunk at a time."""

    def __init__(self, columns: Sequence[str]) -> None:
        self._columns = list(columns)
        self._count = 0
        self._bounds = array("q")
        self._firsts = array("q", [0])
        self._text, opening = _openings(tuple(columns))
        self._json: io.BytesIO | None = None
        self._start = 0 if opening is None else len(opening)
        """Where the rows' array opens in the structured half."""
        self._at = self._start + 1
        """Where the next chunk's rows begin."""
        if self._text is None or opening is None:
            self._text = None
            return
        self._json = io.BytesIO()
        self._json.write(opening)
        self._json.write(b"[")

    def add(self, rows: Sequence[Row]) -> None:
        """Append ``rows`` (text cells, ``None`` for NULL) to both halves."""
        count = len(rows)
        self._count += count
        json = self._json
        if not count or json is None:
            return
        lines = table_lines(rows, len(self._columns))
        try:
            encoded = _ROWS.encode(rows)
        except UnicodeEncodeError:
            encoded = None
        if lines is None or encoded is None:  # neither half can carry them: both are refused
            self._text, self._json = None, None
            return
        # One append: the chunk's lines after a line break (most chunks are one line).
        self._append("\n" + lines[0] if len(lines) == 1 else "\n".join(["", *lines]))
        at = self._at
        if self._bounds:
            json.write(b",")
            at += 1
        json.write(memoryview(encoded)[1:-1])
        self._at = at + len(encoded) - 2
        self._bounds.extend((at, self._at))
        self._firsts.append(self._count)

    def extend(self, rows: Sequence[Row]) -> None:
        """Append rows held whole (shaped rows), a slice at a time: one slice's JSON at most is
        held beside the halves."""
        for start in range(0, len(rows), _SLICE_ROWS):
            self.add(rows[start : start + _SLICE_ROWS])

    def finish(self, provenance: Provenance) -> Result[Written, Refusal]:
        """The answer and both its halves, or the refusal that replaces both."""
        trailer = trailer_text(provenance, self._count)
        closing = encode(provenance).value_or(None)
        if trailer is not None:
            self._append("\n" + trailer)
        json, text = self._json, self._text
        self._json, self._text = None, None
        if json is None or text is None or trailer is None or closing is None:
            return Failure(_UNREPRESENTABLE)
        json.write(b'],"provenance":')
        json.write(closing)
        json.write(b"}")
        data = json.getvalue()  # the buffer itself, cut to its length: no copy
        del json
        rows = WrittenRows(data, self._start, self._bounds, self._firsts)
        answer = Answer(columns=self._columns, rows=rows, provenance=provenance)
        return Success(Written(answer, Halves(text, data)))

    def _append(self, piece: str) -> None:
        """Append ``piece`` to the text half, in place.

        CPython appends to a string in place when its one reference is the local added to, so
        the text half is never copied whole while it grows: it is taken from this writer while
        it grows. The one method that does it for every chunk is specialised for that after its
        first few calls.
        """
        text = self._text
        if text is None:
            return
        self._text = None
        text += piece
        self._text = text


@functools.lru_cache(maxsize=1024)
def _openings(columns: tuple[str, ...]) -> tuple[str | None, bytes | None]:
    """The text half's header line and the structured half's opening of an answer with
    ``columns`` (kept per columns: a server writes the same columns at every answer to a
    question; both are immutable, and the text half is copied once, at its first append)."""
    return header_line(list(columns)), _rows_opening(list(columns))


def _rows_opening(columns: list[str]) -> bytes | None:
    """The structured half of an answer with ``columns`` up to its rows' array (excluded), as
    the codec writes it; ``None`` when a label holds a lone surrogate."""
    whole = encode(Answer(columns=columns, rows=[], provenance=_BLANK)).value_or(None)
    closing = encode(_BLANK).value_or(b"")
    if whole is None:
        return None
    rest = b'[],"provenance":' + closing + b"}"
    assert whole.endswith(b'"rows":' + rest)
    return whole[: len(whole) - len(rest)]
