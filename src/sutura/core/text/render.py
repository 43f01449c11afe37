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

>>> from sutura.core.outcome.refusal import RefusalCode, refusal
>>> render_refusal(refusal(RefusalCode.METRIC_UNKNOWN))[:33]
'refused (metric_unknown): A reque'
"""

from collections.abc import Callable, Iterable, Sequence
from typing import Final, cast

from returns.result import Failure, Result, Success

from sutura.core.outcome.answer import Answer, Provenance
from sutura.core.outcome.refusal import Refusal, RefusalCode, refusal
from sutura.core.text.escape import escape_cell, escape_text, has_lone_surrogate

ROW_COUNT_PREFIX: Final = "\\. rows: "
DEFINITIONS_PREFIX: Final = "definitions: "
DIGEST_SEPARATOR: Final = " (digest "
METRIC_PREFIX: Final = "  "
METRIC_SEPARATOR: Final = ": "
TIME_ZONE_PREFIX: Final = "time zone: "
RANGE_PREFIX: Final = "range: "
SOURCE_PREFIX: Final = "read from "
COMPUTED_PREFIX: Final = "computed at: "
SOURCE_SEPARATOR: Final = " as: "

Row = Sequence[str | None]
_UNREPRESENTABLE: Final = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
# Bytes a plain table may hold: printable ASCII but the backslash, and the separators. A row
# checked alone may hold no quote at all (so a cell's leading quote is never missed).
_PLAIN_TABLE_BYTES: Final = bytes(b for b in range(0x20, 0x7F) if b != 0x5C) + b"\t\n"
_PLAIN_ROW_BYTES: Final = bytes(b for b in range(0x20, 0x7F) if b not in (0x22, 0x5C)) + b"\t"
# Joins a row known to hold no NULL: ``all(row)`` is checked first at every call.
_join_cells: Final[Callable[[Row], str]] = "\t".join  # type: ignore[assignment]


def _opens_a_quote(text: str) -> bool:
    """Whether some cell of ``text`` (tab- and newline-joined) starts with ``"``."""
    return '"' in text and (text.startswith('"') or '\t"' in text or '\n"' in text)


def _plain_table(rows: Sequence[Row], width: int) -> str | None:
    """The rows tab- and newline-joined when no cell needs escaping, else ``None``.

    Whole-table C-level checks, cheapest-to-fail first: no NULL or empty cell; ASCII; no cell
    opening with a quote; nothing but printable ASCII (less the backslash) and separators;
    separators exactly where the join put them; every row ``width`` cells long (so, with the
    right tab count, no cell holds a tab).
    """
    if not all(map(all, rows)):
        return None
    body = "\n".join(map(_join_cells, rows))
    if not body.isascii() or _opens_a_quote(body):
        return None
    if body.encode("ascii").translate(None, _PLAIN_TABLE_BYTES):
        return None
    if body.count("\n") != len(rows) - 1 or body.count("\t") != len(rows) * (width - 1):
        return None
    return body if set(map(len, rows)) == {width} else None


def _escaped_row(row: Row, width: int) -> str | None:
    """One row line: the plain join if the row is clean, else per cell.

    ``None`` when the row cannot be carried: the wrong width, or a lone surrogate.
    """
    if len(row) != width:
        return None
    line = _join_cells(row) if all(row) else ""
    # UTF-8 of a non-ASCII line holds bytes >= 0x80, never plain: such a row goes per cell.
    plain = line and not line.encode("utf-8", "surrogatepass").translate(None, _PLAIN_ROW_BYTES)
    if plain and line.count("\t") == width - 1:
        return line
    if has_lone_surrogate("".join(filter(None, row))):
        return None
    # The per-cell guard inline (a call per cell is most of the cost of a dirty row).
    cells = [
        cell
        if cell and cell.isascii() and cell.isprintable() and "\\" not in cell and cell[0] != '"'
        else escape_cell(cell)
        for cell in row
    ]
    return "\t".join(cells)


def render_rows(rows: Sequence[Row], width: int) -> Result[str, Refusal]:
    r"""Render rows as lines of escaped, tab-joined cells (no trailing newline).

    A row whose length differs from ``width``, a table without columns, and a lone surrogate
    are not representable: the whole table is refused, never partly rendered.

    >>> render_rows([["a\tb", None], ["", "\\N"]], 2).unwrap()
    'a\\tb\t\\N\n\\e\t\\\\N'
    """
    if width < 1:
        return Failure(_UNREPRESENTABLE)
    if not rows:
        return Success("")
    plain = _plain_table(rows, width)
    if plain is not None:
        return Success(plain)
    lines = [_escaped_row(row, width) for row in rows]
    if None in lines:
        return Failure(_UNREPRESENTABLE)
    return Success("\n".join(cast("list[str]", lines)))


def render_header(columns: Sequence[str]) -> Result[str, Refusal]:
    """The header line: escaped column labels, tab-joined."""
    return render_rows([columns], len(columns))


def row_count_line(count: int) -> str:
    r"""The line that ends the rows: ``\. rows: <n>``.

    >>> row_count_line(3)
    '\\. rows: 3'
    """
    return f"{ROW_COUNT_PREFIX}{count}"


def _trailer_is_representable(provenance: Provenance) -> bool:
    """Every name is UTF-8 safe, and the right-hand fields (digests, postures) hold no space.

    Right-hand fields are parsed from the right, so a space in one would make a line ambiguous.
    """
    names = [provenance.definition_version, provenance.definition_digest, provenance.time_zone]
    names += [item for m in provenance.metric_digests for item in (m.metric, m.digest)]
    names += [item for e in provenance.executed_as for item in (e.source, e.posture)]
    names += provenance.ranges
    names.append(provenance.computed_at)
    right = [provenance.definition_digest, provenance.time_zone, *provenance.ranges]
    right.append(provenance.computed_at)
    right += [m.digest for m in provenance.metric_digests]
    right += [e.posture for e in provenance.executed_as]
    return not any(map(has_lone_surrogate, names)) and not any(" " in r for r in right)


def render_trailer(provenance: Provenance, count: int) -> Result[str, Refusal]:
    """The row-count line and the provenance lines, in that order."""
    if not _trailer_is_representable(provenance):
        return Failure(_UNREPRESENTABLE)
    version = escape_cell(provenance.definition_version)
    digest = escape_cell(provenance.definition_digest)
    lines = [row_count_line(count), f"{DEFINITIONS_PREFIX}{version}{DIGEST_SEPARATOR}{digest})"]
    lines += [
        f"{METRIC_PREFIX}{escape_cell(m.metric)}{METRIC_SEPARATOR}{escape_cell(m.digest)}"
        for m in provenance.metric_digests
    ]
    lines.append(f"{TIME_ZONE_PREFIX}{escape_cell(provenance.time_zone)}")
    lines += [f"{RANGE_PREFIX}{escape_cell(r)}" for r in provenance.ranges]
    lines += [
        f"{SOURCE_PREFIX}{escape_cell(e.source)}{SOURCE_SEPARATOR}{escape_cell(e.posture)}"
        for e in provenance.executed_as
    ]
    if provenance.computed_at:
        lines.append(f"{COMPUTED_PREFIX}{escape_cell(provenance.computed_at)}")
    return Success("\n".join(lines))


def _joined(parts: Iterable[str]) -> str:
    return "\n".join(parts)


def render_answer(answer: Answer) -> Result[str, Refusal]:
    r"""The text half of an answer, or a refusal when a value cannot be carried faithfully.

    >>> from sutura.core.outcome.answer import ExecutedAs, MetricDigest
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
    rows = answer.rows
    return render_header(answer.columns).bind(
        lambda header: render_rows(rows, len(answer.columns)).bind(
            lambda body: render_trailer(answer.provenance, len(rows)).map(
                lambda trailer: _joined([header, body, trailer] if rows else [header, trailer])
            )
        )
    )


def render_refusal(reason: Refusal) -> str:
    """The text half of a refusal: ``refused (<code>): <detail>``, on one line."""
    return f"refused ({escape_text(reason.code.value)}): {escape_cell(reason.detail)}"
