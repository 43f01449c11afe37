"""An answer's rows, held as the JSON its structured half already carries.

An answer of many rows holds each cell once, in the bytes of its structured half, not once
more as a Python string in a list per row: :class:`WrittenRows` reads the rows from those bytes
when asked, a chunk (a few hundred rows) at a time. Each row read is a new ``list`` of text
cells (``None`` is SQL NULL), equal to the row the source returned.

>>> data = b'{"rows":[["a",null],["b","c"]]}'
>>> rows = WrittenRows(data, 8, [9, 29], [0, 2])
>>> len(rows), rows[1], list(rows) == [["a", None], ["b", "c"]]
(2, ['b', 'c'], True)
>>> bytes(rows.json())
b'[["a",null],["b","c"]]'
"""

import bisect
import operator
from collections.abc import Iterator, Sequence
from typing import Final, overload

import msgspec

Cells = list[str | None]
"""One row: its text cells; ``None`` is SQL NULL."""

_DECODER: Final = msgspec.json.Decoder(list[Cells])


class WrittenRows(Sequence[Cells]):
    """Rows read from JSON bytes: ``data[start]`` opens the rows' array, and chunk ``k`` holds
    the rows ``firsts[k]`` to ``firsts[k + 1]`` (excluded), which ``data[bounds[2k]:bounds[2k +
    1]]`` spells without brackets, comma-separated; the array closes right after the last
    chunk."""

    __slots__ = ("_bounds", "_data", "_firsts", "_last", "_start")

    def __init__(
        self, data: bytes, start: int, bounds: Sequence[int], firsts: Sequence[int]
    ) -> None:
        self._data = data
        self._start = start
        self._bounds = bounds
        self._firsts = firsts
        self._last: tuple[int, list[Cells]] | None = None

    def json(self) -> memoryview:
        """The rows' JSON array, as the structured half writes it (no copy)."""
        end = self._bounds[-1] if self._bounds else self._start + 1
        return memoryview(self._data)[self._start : end + 1]

    def __len__(self) -> int:
        return self._firsts[-1]

    def __iter__(self) -> Iterator[Cells]:
        for index in range(len(self._firsts) - 1):
            yield from self._decoded(index)

    @overload
    def __getitem__(self, index: int) -> Cells: ...
    @overload
    def __getitem__(self, index: slice) -> list[Cells]: ...
    def __getitem__(self, index: int | slice) -> Cells | list[Cells]:
        if isinstance(index, slice):
            return [self[at] for at in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("row index out of range")
        chunk = bisect.bisect_right(self._firsts, index) - 1
        last = self._last  # read once: another thread may keep another chunk meanwhile
        if last is None or last[0] != chunk:
            last = (chunk, self._decoded(chunk))
            self._last = last
        return list(last[1][index - self._firsts[chunk]])

    def _decoded(self, chunk: int) -> list[Cells]:
        begin, end = self._bounds[2 * chunk], self._bounds[2 * chunk + 1]
        array = bytearray(b"[")
        array += memoryview(self._data)[begin:end]
        array += b"]"
        return _DECODER.decode(array)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, WrittenRows | list | tuple):
            return len(self) == len(other) and all(map(operator.eq, self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list of lists, unhashable as one

    def __repr__(self) -> str:
        return repr(list(self))
