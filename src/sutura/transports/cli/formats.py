"""How the command line prints rows: the text half, an aligned table, CSV, or the structured half.

The text half and the structured half are the reply's own (what an agent and a program read).
The table and CSV are views of the same rows for a person and a spreadsheet, built from the
same cells: every cell is escaped as the text half escapes it (docs/text-format.md), so no byte
a data system wrote moves the cursor, forges a line or hides a character. In the table, NULL
is ``\\N`` and the empty string ``\\e``, as in the text half, and the text half's lines
around its rows (the raw tool's notice; definitions, provenance) stay unchanged, but for its
row-count line, which a person reads as ``12 rows``.
In CSV (RFC 4180), NULL is an empty field and the empty string ``""``; CSV carries the rows
alone.
"""

import argparse
from collections.abc import Sequence
from enum import StrEnum
from typing import assert_never

from rich.cells import cell_len

from sutura.core.text.escape import escape_cell, escape_text
from sutura.core.text.render import ROW_COUNT_PREFIX

_NUMBER = frozenset("0123456789+-.eE")


class OutputFormat(StrEnum):
    """``--format``: what the command prints for an answer."""

    TEXT = "text"
    TABLE = "table"
    CSV = "csv"
    JSON = "json"


def add_format_arguments(parser: argparse.ArgumentParser) -> None:
    """``--format``, and its short forms ``--json`` and ``--text`` (one of them at most)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--format",
        choices=[f.value for f in OutputFormat],
        help="text (the text half), table (aligned, for a terminal), csv (the rows alone), "
        "json (the structured half); default: table on a terminal, text when piped",
    )
    group.add_argument(
        "--json", action="store_true", help="print the structured half (--format json)"
    )
    group.add_argument("--text", action="store_true", help="print the text half (--format text)")


def chosen_format(args: argparse.Namespace, *, terminal: bool) -> OutputFormat:
    """The format asked for, else a table on a terminal and the text half when piped."""
    if args.format is not None:
        return OutputFormat(args.format)
    if args.json:
        return OutputFormat.JSON
    if args.text or not terminal:
        return OutputFormat.TEXT
    return OutputFormat.TABLE


def rows_view(
    fmt: OutputFormat,
    text_half: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[str | None]],
) -> str | None:
    """The rows as ``fmt`` shows them, or None when ``fmt`` is a half (the caller prints it)."""
    match fmt:
        case OutputFormat.TEXT | OutputFormat.JSON:
            return None
        case OutputFormat.TABLE:
            return aligned(text_half, columns, rows)
        case OutputFormat.CSV:
            return as_csv(columns, rows)
        case _:
            assert_never(fmt)


def aligned(text_half: str, columns: Sequence[str], rows: Sequence[Sequence[str | None]]) -> str:
    """An aligned table of escaped cells (numbers to the right), then the text half's trailer.

    >>> print(aligned("a\\tb\\n1\\tx\\n\\\\. rows: 1\\nmore", ["a", "b"], [["1", None]]))
    a  b
    -  --
    1  \\N
    1 row
    more
    """
    header = [escape_cell(c) for c in columns]
    body = [[escape_cell(cell) for cell in row] for row in rows]
    halves = text_half.split("\n")
    # The text half's lines before its header (the raw tool's notice) and after its rows stay.
    start = halves.index("\t".join(header)) if "\t".join(header) in halves else 0
    widths = [max(cell_len(line[i]) for line in [header, *body]) for i in range(len(header))]
    numeric = [all(_numeric(row[i]) for row in rows) and bool(rows) for i in range(len(header))]
    lines = [*halves[:start], _line(header, widths, [False] * len(header))]
    lines.append(_line(["-" * w for w in widths], widths, numeric))
    lines += [_line(line, widths, numeric) for line in body]
    trailer = halves[start + 1 + len(rows) :]
    if trailer and trailer[0] == f"{ROW_COUNT_PREFIX}{len(rows)}":
        trailer[0] = f"{len(rows)} row" if len(rows) == 1 else f"{len(rows)} rows"
    return "\n".join([*lines, *trailer])


def _numeric(cell: str | None) -> bool:
    return cell is None or (bool(cell) and set(cell) <= _NUMBER)


def _line(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool]) -> str:
    padded = [
        " " * (w - cell_len(c)) + c if r else c + " " * (w - cell_len(c))
        for c, w, r in zip(cells, widths, right, strict=True)
    ]
    return "  ".join(padded).rstrip(" ")


def as_csv(columns: Sequence[str], rows: Sequence[Sequence[str | None]]) -> str:
    """RFC 4180 CSV of escaped cells: NULL an empty field, the empty string ``""``.

    >>> print(as_csv(["n", "said"], [["1", "a, b"], [None, ""], ["2", "x"]]))
    n,said
    1,"a, b"
    ,""
    2,x
    """
    lines = [",".join(_csv_field(c) for c in columns)]
    lines += [",".join(_csv_field(cell) for cell in row) for row in rows]
    return "\n".join(lines)


def _csv_field(cell: str | None) -> str:
    if cell is None:
        return ""
    text = escape_text(cell)
    if text == "" or any(ch in text for ch in ',"') or text != text.strip(" "):
        return '"' + text.replace('"', '""') + '"'
    return text
