r"""The text half of answers and refusals: what a model reads.

An answer renders as a header line (column labels), one line per row, then a trailer that opens
with the *row-count line* ``\. rows: <n>`` and carries the provenance::

    period	revenue
    2024-01-01	1200.50
    2024-02-01	\N
    \. rows: 2
    definitions: v7 (digest 3f2a)
      revenue: 9c1e
    read from warehouse as: shared-service-user

Labels, cells and every name in the trailer go through :func:`~sutura.core.escape.escape_cell`,
so no value holds a raw tab or line break, and no line a value wrote can start with ``\.``: at
the start of a line, an escaped value's backslash is always followed by one of ``\ t n r u U N
e``. The row-count line is therefore the first line starting ``\.`` read top-down and the last
read bottom-up; both readers find the same single trailer, and its count verifies the rows.
``docs/text-format.md`` is the full grammar; ``decode_text`` is its decoder.

>>> from sutura.core.refusal import RefusalCode, refusal
>>> render_refusal(refusal(RefusalCode.METRIC_UNKNOWN))[:33]
'refused (metric_unknown): A reque'
"""

from collections.abc import Iterable, Sequence
from typing import Final, cast

from returns.result import Failure, Result, Success

from sutura.core.escape import escape_cell, escape_text, has_lone_surrogate
from sutura.core.outcome import Answer, Provenance
from sutura.core.refusal import Refusal, RefusalCode, refusal

ROW_COUNT_PREFIX: Final = "\\. rows: "
DEFINITIONS_PREFIX: Final = "definitions: "
DIGEST_SEPARATOR: Final = " (digest "
METRIC_PREFIX: Final = "  "
METRIC_SEPARATOR: Final = ": "
SOURCE_PREFIX: Final = "read from "
SOURCE_SEPARATOR: Final = " as: "

Row = Sequence[str | None]

_UNREPRESENTABLE: Final = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
# Every byte a cell may hold in the fast path: printable ASCII except the backslash.
_PLAIN_BYTES: Final = bytes(b for b in range(0x20, 0x7F) if b != 0x5C)
_SEPARATORS: Final = b"\t\n"


def _opens_a_quote(text: str) -> bool:
    """Whether some cell of ``text`` (tab- and newline-joined) starts with ``"``."""
    return text.startswith('"') or '\t"' in text or '\n"' in text


def _plain_table(rows: Sequence[Row], width: int) -> str | None:
    """The rows tab- and newline-joined when no cell needs escaping, else ``None``.

    Whole-table C-level checks: no NULL or empty cell, ASCII, separators exactly where the
    join put them, no cell opening with a quote, and nothing but printable ASCII other than
    the backslash.
    """
    if not all(map(all, rows)):
        return None
    body = "\n".join(map("\t".join, cast("Sequence[Sequence[str]]", rows)))  # no NULL: all()
    if not body.isascii() or body.count("\t") != len(rows) * (width - 1):
        return None
    if body.count("\n") != len(rows) - 1 or _opens_a_quote(body):
        return None
    return None if body.encode("ascii").translate(None, _PLAIN_BYTES + _SEPARATORS) else body


def _escaped_row(row: Row, tabs: int) -> str | None:
    """One row line: the plain join if the row is clean, else per cell; ``None`` on a surrogate."""
    line = "\t".join(cast("Sequence[str]", row)) if all(row) else ""  # no NULL: all(row)
    clean = line.isascii() and line.count("\t") == tabs and all(row) and not _opens_a_quote(line)
    if clean and not line.encode("ascii").translate(None, _PLAIN_BYTES + b"\t"):
        return line
    if any(cell is not None and has_lone_surrogate(cell) for cell in row):
        return None
    return "\t".join([escape_cell(cell) for cell in row])


def render_rows(rows: Sequence[Row], width: int) -> Result[str, Refusal]:
    r"""Render rows as lines of escaped, tab-joined cells (no trailing newline).

    A row whose length differs from ``width``, a table without columns, and a lone surrogate
    are not representable: the whole table is refused, never partly rendered.

    >>> render_rows([["a\tb", None], ["", "\\N"]], 2).unwrap()
    'a\\tb\t\\N\n\\e\t\\\\N'
    """
    if width < 1 or not set(map(len, rows)) <= {width}:
        return Failure(_UNREPRESENTABLE)
    plain = _plain_table(rows, width)
    if plain is not None:
        return Success(plain)
    lines: list[str] = []
    for row in rows:
        line = _escaped_row(row, width - 1)
        if line is None:
            return Failure(_UNREPRESENTABLE)
        lines.append(line)
    return Success("\n".join(lines))


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
    names = [provenance.definition_version, provenance.definition_digest]
    names += [item for m in provenance.metric_digests for item in (m.metric, m.digest)]
    names += [item for e in provenance.executed_as for item in (e.source, e.posture)]
    right = [provenance.definition_digest]
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
    lines += [
        f"{SOURCE_PREFIX}{escape_cell(e.source)}{SOURCE_SEPARATOR}{escape_cell(e.posture)}"
        for e in provenance.executed_as
    ]
    return Success("\n".join(lines))


def _joined(parts: Iterable[str]) -> str:
    return "\n".join(parts)


def render_answer(answer: Answer) -> Result[str, Refusal]:
    r"""The text half of an answer, or a refusal when a value cannot be carried faithfully.

    >>> from sutura.core.outcome import ExecutedAs, MetricDigest
    >>> provenance = Provenance(
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
