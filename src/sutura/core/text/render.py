r"""The text half of answers and refusals: what a model reads.

An answer renders as a header line (column labels), one line per row, then a trailer that opens
with the *row-count line* ``\. rows: <n>`` and carries the provenance::

    period	revenue
    2024-01-01	1200.50
    2024-02-01	\N
    \. rows: 2
    definitions: v7 (digest 3f2a)
      revenue: 9c1e
    time zone: UTC
    read from warehouse as: shared-service-user

Labels, cells and every name in the trailer go through :func:`~sutura.core.text.escape.escape_cell`,
so no value holds a raw tab or line break, and no line a value wrote can start with ``\.``: at
the start of a line, an escaped value's backslash is always followed by one of ``\ t n r u U N
e``. The row-count line is therefore the first line starting ``\.`` read top-down and the last
read bottom-up; both readers find the same single trailer, and its count verifies the rows.
``docs/text-format.md`` is the full grammar; ``decode_text`` is its decoder.

>>> from sutura.core.nouns.refusal import RefusalCode, refusal
>>> render_refusal(refusal(RefusalCode.METRIC_UNKNOWN))[:33]
'refused (metric_unknown): A reque'
"""

import functools
from collections.abc import Callable, Sequence
from itertools import chain, compress
from operator import not_
from typing import Final

from returns.result import Failure, Result, Success

from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Provenance
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.text.escape import (
    EMPTY_TOKEN,
    NULL_TOKEN,
    escape_cell,
    escape_text,
    has_lone_surrogate,
)

ROW_COUNT_PREFIX: Final = "\\. rows: "
DEFINITIONS_PREFIX: Final = "definitions: "
DIGEST_SEPARATOR: Final = " (digest "
METRIC_PREFIX: Final = "  "
METRIC_SEPARATOR: Final = ": "
TIME_ZONE_PREFIX: Final = "time zone: "
RANGE_PREFIX: Final = "range: "
RANGE_ASKED_PREFIX: Final = "range asked: "
SOURCE_PREFIX: Final = "read from "
COMPUTED_PREFIX: Final = "computed at: "
SOURCE_SEPARATOR: Final = " as: "

Row = Sequence[str | None]
_UNREPRESENTABLE: Final = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
# Join a row known to hold no NULL (checked first at every call).
_join_cells: Final[Callable[[Row], str]] = "\t".join  # type: ignore[assignment]

# The bytes a row may hold and still render as its plain join: printable ASCII but the
# backslash and the quote (a cell's leading quote is escaped; any quote sends its row cell by
# cell). In a slice joined by tabs and line breaks, those two are the slice's own when their
# counts are right (no cell holds either).
_PLAIN_BYTES: Final = bytes(b for b in range(0x20, 0x7F) if b not in (0x22, 0x5C))
_NOT_SEPARATORS: Final = bytes(b for b in range(256) if b not in (0x09, 0x0A))
# Marks a slice's UTF-8 bytes: 0 where plain, 1 where a character may need escaping, line
# breaks kept (UTF-8 never uses 0x0A inside a multi-byte character).
_DIRTY_MARK: Final = b"\x01"
_MARKS: Final = bytes(
    0x0A if byte == 0x0A else 0 if byte in _PLAIN_BYTES or byte == 0x09 else 1
    for byte in range(256)
)
# How a NULL and an empty cell are spelled in a line shown (their tokens) and in a line checked
# (plain letters, so the rest of the row decides); see :func:`_marked_slice`.
_TOKENS: Final[dict[str | None, str]] = {None: NULL_TOKEN, "": EMPTY_TOKEN}
_PLACEHOLDERS: Final[dict[str | None, str]] = {None: "N", "": "e"}
# Splits encoded row lines: no UTF-8 encoding holds this byte (see :func:`_marked_slice`).
_LINE_END: Final = b"\xff"
# Rows rendered at once (see :func:`table_lines`): a slice of short cells fits the caches, and a
# large table costs one Python call per slice.
_SLICE_ROWS: Final = 1024


def _escaped_row(row: Row) -> str:
    """One row line, cell by cell (a row without a lone surrogate: the caller checks)."""
    # The per-cell guard inline (a call per cell is most of the cost of a dirty row).
    cells = [
        cell
        if cell and cell.isascii() and cell.isprintable() and "\\" not in cell and cell[0] != '"'
        else escape_cell(cell)
        for cell in row
    ]
    return "\t".join(cells)


def _renders_as_itself(spaced: str) -> bool:
    """Whether space-joined names (or cells) all render as themselves: printable ASCII without
    a backslash or a quote (a space renders as itself)."""
    return spaced.isascii() and spaced.isprintable() and "\\" not in spaced and '"' not in spaced


@functools.lru_cache(maxsize=32)
def _separators(rows: int, width: int) -> bytes:
    """The tabs and line breaks that join ``rows`` rows of ``width`` cells, in order."""
    tabs = b"\t" * (width - 1)
    return (tabs + b"\n") * (rows - 1) + tabs


def _table(rows: Sequence[Row], width: int) -> str | None:
    """The rendered rows, or ``None`` when they are not representable (see :func:`render_rows`)."""
    lines = table_lines(rows, width)
    return None if lines is None else "\n".join(lines)


def table_lines(rows: Sequence[Row], width: int) -> list[str] | None:
    """The rendered rows as lines to join by line breaks (a line may hold several rows), or
    ``None`` when they are not representable. A row's line depends on that row alone, so the
    lines of a table's parts, joined in order, are the table's.

    Rendered a slice of ``_SLICE_ROWS`` rows at a time: a row's line depends on that row
    alone, and each check below reads every row of its slice again, which costs a memory
    fetch per row (and per cell) when the table is larger than the processor's caches and
    little when the slice is not. The caller joins the lines once, with whatever surrounds
    them.
    """
    if width < 1:
        return None
    if len(rows) <= _SLICE_ROWS:
        return _slice(rows, width)
    pieces: list[str] = []
    for start in range(0, len(rows), _SLICE_ROWS):
        lines = _slice(rows[start : start + _SLICE_ROWS], width)
        if lines is None:
            return None
        pieces += lines
    return pieces


def _slice(rows: Sequence[Row], width: int) -> list[str] | None:
    """The lines of a slice of a table (``width`` ≥ 1), some of them several rows long; or
    ``None``.

    A slice without NULL or empty cells is joined once and checked whole, in C: deleting its
    plain bytes leaves exactly the tabs and line breaks that join rows as wide as the header
    when it is clean. (Those separators give every row line ``width - 1`` tabs; a row of
    fewer cells would need a tab inside a cell for that, and then the cells would add up to
    fewer than ``width`` per row: with the count checked first, the separators prove every
    width.) When it is not clean but no cell holds a tab or a line break, the line breaks
    that are left find the rows to render cell by cell. Any other slice (a NULL or an empty
    cell, a cell holding a tab or a line break) is rendered by :func:`_marked_slice`.
    """
    if sum(map(len, rows)) != width * len(rows):
        return None
    if not rows:
        return []
    full = list(map(all, rows))
    if not all(full):
        return _marked_slice(rows, width, full, list(map(_join_cells, compress(rows, full))))
    # The row lines are not kept beside the joined slice and its encoding: the clean slice,
    # the common case, needs neither again.
    table = "\n".join(map(_join_cells, rows))
    left = table.encode("utf-8", "surrogatepass").translate(None, _PLAIN_BYTES)
    separators = _separators(len(rows), width)
    if left == separators:
        return [table]
    if left.translate(None, _NOT_SEPARATORS) == separators:
        # No cell holds a tab or a line break: ``left`` keeps every line break, so its marks
        # find the rows as the slice's would, and the slice's line breaks split its rows.
        dirty = _rows_marked(left.translate(_MARKS))
        return _escaped_lines(rows, table.split("\n"), dirty)
    return _marked_slice(rows, width, full, list(map(_join_cells, rows)))


def _rows_marked(marked: bytes) -> list[int]:
    """The rows of a marked slice (see ``_MARKS``) holding a mark, found by C-level searches."""
    found: list[int] = []
    row, counted = 0, 0
    at = marked.find(_DIRTY_MARK)
    while at != -1:
        row += marked.count(b"\n", counted, at)
        found.append(row)
        counted = marked.find(b"\n", at)
        if counted == -1:
            break
        at = marked.find(_DIRTY_MARK, counted)
    return found


def _escaped_lines(rows: Sequence[Row], lines: list[str], dirty: list[int]) -> list[str] | None:
    """The lines, the ``dirty`` rows' rendered cell by cell instead; or ``None`` when one of
    those holds a lone surrogate."""
    for index in dirty:
        if has_lone_surrogate(lines[index]):
            return None
        lines[index] = _escaped_row(rows[index])
    return lines


def _marked_slice(
    rows: Sequence[Row], width: int, full: list[bool], lines: list[str]
) -> list[str] | None:
    """The lines of a slice some of whose rows need escaping, or ``None``.

    ``full`` tells the rows without a NULL or an empty cell, and ``lines`` holds their plain
    joins, in order. The other rows are joined twice, in C: with their NULL and empty cells
    spelled as their tokens (the line shown when the rest of the row is plain) and as a plain
    letter (the line checked). A row is its shown line when its checked line's bytes, with
    the plain ones deleted, are exactly ``width - 1`` tabs: no cell holds a tab (every row is
    ``width`` cells wide) or a byte to escape. The checked lines are encoded and checked
    together, in C, split at a byte no UTF-8 holds. Every other row is rendered cell by cell,
    without a Python step per plain row.
    """
    if set(map(len, rows)) != {width}:
        return None
    shown, checked = lines, lines
    if not all(full):
        partial = list(compress(rows, map(not_, full)))
        shown = _in_row_order(full, lines, _spelled(partial, width, _TOKENS))
        checked = _in_row_order(full, lines, _spelled(partial, width, _PLACEHOLDERS))
    try:
        encoded = _LINE_END.join(map(str.encode, checked))
    except UnicodeEncodeError:  # a lone surrogate: the table is refused
        return None
    left = encoded.translate(None, _PLAIN_BYTES).split(_LINE_END)
    for index in compress(range(len(rows)), map((b"\t" * (width - 1)).__ne__, left)):
        shown[index] = _escaped_row(rows[index])
    return shown


def _spelled(rows: list[Row], width: int, spelling: dict[str | None, str]) -> list[str]:
    """The rows' lines, each NULL and empty cell spelled as ``spelling`` says."""
    cells = list(chain.from_iterable(rows))
    spelled = iter(map(spelling.get, cells, cells))
    return list(map(_join_cells, zip(*[spelled] * width, strict=True)))


def _in_row_order(full: list[bool], lines: list[str], others: list[str]) -> list[str]:
    """The full rows' ``lines`` and the other rows' lines, merged in row order."""
    next_full, next_other = iter(lines).__next__, iter(others).__next__
    return [next_full() if whole else next_other() for whole in full]


def render_rows(rows: Sequence[Row], width: int) -> Result[str, Refusal]:
    r"""Render rows as lines of escaped, tab-joined cells (no trailing newline).

    A row whose length differs from ``width``, a table without columns, and a lone surrogate
    are not representable: the whole table is refused, never partly rendered.

    >>> render_rows([["a\tb", None], ["", "\\N"]], 2).unwrap()
    'a\\tb\t\\N\n\\e\t\\\\N'
    """
    table = _table(rows, width)
    return Failure(_UNREPRESENTABLE) if table is None else Success(table)


def render_header(columns: Sequence[str]) -> Result[str, Refusal]:
    """The header line: escaped column labels, tab-joined."""
    return render_rows([columns], len(columns))


def row_count_line(count: int) -> str:
    r"""The line that ends the rows: ``\. rows: <n>``.

    >>> row_count_line(3)
    '\\. rows: 3'
    """
    return f"{ROW_COUNT_PREFIX}{count}"


_Digests = tuple[MetricDigest, ...]
_Readers = tuple[ExecutedAs, ...]


def _trailer(provenance: Provenance, count: int) -> str | None:
    """The trailer, or ``None`` when it is not representable (see :func:`render_trailer`).

    Every line but the first (the row count) and the last (the instant computed) is the same
    for every answer to one question over one catalog: those are written once and kept
    (:func:`_middle_lines`). A name renders alone as it would beside the others (a plain name
    is its own escape), so the instant is checked and written apart.
    """
    middle = _middle_lines(
        provenance.definition_version,
        provenance.definition_digest,
        provenance.time_zone,
        tuple(provenance.metric_digests),
        tuple(provenance.executed_as),
        tuple(provenance.ranges),
        provenance.range_asked,
    )
    computed = provenance.computed_at
    if middle is None:
        return None
    if not computed:
        return f"{row_count_line(count)}\n{middle}"
    if " " in computed:  # a right-hand field: a space would make its line ambiguous
        return None
    if not _renders_as_itself(computed):
        if has_lone_surrogate(computed):
            return None
        computed = escape_cell(computed)
    return f"{row_count_line(count)}\n{middle}\n{COMPUTED_PREFIX}{computed}"


@functools.lru_cache(maxsize=1024)
def _middle_lines(
    version: str,
    digest: str,
    time_zone: str,
    metric_digests: _Digests,
    executed_as: _Readers,
    ranges: tuple[str, ...],
    range_asked: str,
) -> str | None:
    """The trailer's lines between the row count and the instant, or ``None`` when a name
    holds a lone surrogate or a right-hand field (digests, postures, ranges, the time zone) a
    space, which would make its line ambiguous (those fields are parsed from the right)."""
    names = [version, digest, time_zone]
    names += [item for m in metric_digests for item in (m.metric, m.digest)]
    names += [item for e in executed_as for item in (e.source, e.posture)]
    names += ranges
    if range_asked:
        names.append(range_asked)
    plain = _render_as_themselves(names)  # no name needs escaping
    if not plain and any(map(has_lone_surrogate, names)):
        return None
    right = [digest, time_zone, *ranges, range_asked]
    right += [m.digest for m in metric_digests] + [e.posture for e in executed_as]
    if " " in "".join(right):
        return None
    cell: Callable[[str], str] = _itself if plain else escape_cell
    lines = [f"{DEFINITIONS_PREFIX}{cell(version)}{DIGEST_SEPARATOR}{cell(digest)})"]
    lines += [
        f"{METRIC_PREFIX}{cell(m.metric)}{METRIC_SEPARATOR}{cell(m.digest)}" for m in metric_digests
    ]
    lines.append(f"{TIME_ZONE_PREFIX}{cell(time_zone)}")
    if range_asked:
        lines.append(f"{RANGE_ASKED_PREFIX}{cell(range_asked)}")
    lines += [f"{RANGE_PREFIX}{cell(r)}" for r in ranges]
    lines += [
        f"{SOURCE_PREFIX}{cell(e.source)}{SOURCE_SEPARATOR}{cell(e.posture)}" for e in executed_as
    ]
    return "\n".join(lines)


def _render_as_themselves(names: list[str]) -> bool:
    """Whether every name renders as itself: none empty, all printable ASCII without a
    backslash or a quote (checked space-joined, as a space renders as itself)."""
    return all(names) and _renders_as_itself(" ".join(names))


def _itself(name: str) -> str:
    return name


def render_trailer(provenance: Provenance, count: int) -> Result[str, Refusal]:
    """The row-count line and the provenance lines, in that order.

    Not representable when a name holds a lone surrogate, or a right-hand field a space.
    """
    trailer = _trailer(provenance, count)
    return Failure(_UNREPRESENTABLE) if trailer is None else Success(trailer)


def render_answer(answer: Answer) -> Result[str, Refusal]:
    r"""The text half of an answer, or a refusal when a value cannot be carried faithfully.

    >>> from sutura.core.nouns.answer import ExecutedAs, MetricDigest
    >>> provenance = Provenance(
    ...     time_zone="UTC",
    ...     definition_version="v1", definition_digest="ab",
    ...     metric_digests=[MetricDigest(metric="m", digest="cd")],
    ...     executed_as=[ExecutedAs(source="wh", posture="shared-service-user")])
    >>> answer = Answer(columns=["m"], rows=[[""], [None]], provenance=provenance)
    >>> print(render_answer(answer).unwrap())
    m
    \e
    \N
    \. rows: 2
    definitions: v1 (digest ab)
      m: cd
    time zone: UTC
    read from wh as: shared-service-user
    >>> hostile = Answer(columns=["m"], rows=[["\ud800"]], provenance=provenance)
    >>> render_answer(hostile).failure().code
    <RefusalCode.VALUE_NOT_REPRESENTABLE: 'value_not_representable'>
    """
    rows, columns = answer.rows, answer.columns
    header = header_line(columns)
    body = table_lines(rows, len(columns)) if header is not None else None
    trailer = trailer_text(answer.provenance, len(rows)) if body is not None else None
    if header is None or body is None or trailer is None:
        return Failure(_UNREPRESENTABLE)
    return Success("\n".join([header, *body, trailer]))


def header_line(columns: Sequence[str]) -> str | None:
    """An answer's header line (its column labels), or ``None`` when it is not representable
    (no column, a lone surrogate)."""
    if columns and _render_as_themselves(list(columns)):  # the common case, without a scan
        return "\t".join(columns)
    return _table([columns], len(columns))


def trailer_text(provenance: Provenance, count: int) -> str | None:
    """The trailer of an answer of ``count`` rows, or ``None`` when it is not representable
    (see :func:`render_trailer`)."""
    return _trailer(provenance, count)


def render_refusal(reason: Refusal) -> str:
    """The text half of a refusal: ``refused (<code>): <detail>``, on one line."""
    return f"refused ({escape_text(reason.code.value)}): {escape_cell(reason.detail)}"
