r"""The text output of ``sutura render``: each text half after a line ``\. record <n>``.

``<n>`` is the record's number in the input (its line in JSON Lines, its position in a JSON
array), so a skipped invalid record shows as a gap. The separator cannot be confused with the
content: a text half never holds an empty line, and its only line starting ``\.`` is its
row-count line ``\. rows: <n>`` (``render_text``: an escaped value never starts ``\.``). Every
text half ends with a newline; empty input renders as empty output.

>>> frame(3, "refused (metric_unknown): Read the catalog.")
b'\\. record 3\nrefused (metric_unknown): Read the catalog.\n'
>>> split_records("\\. record 3\nrefused (metric_unknown): Read the catalog.\n").unwrap()
[Framed(number=3, text='refused (metric_unknown): Read the catalog.')]
>>> split_records("refused (metric_unknown): x\n").failure()
TextError(line=1, problem='expected \\. record <n> before a text half')
"""

import re
from typing import Final, NamedTuple

from returns.result import Failure, Result, Success

from sutura.core.text.decode import TextError

RECORD_PREFIX: Final = "\\. record "
_MARKER: Final = re.compile(r"\\\. record (?P<number>[1-9][0-9]*)")


class Framed(NamedTuple):
    """One text half of a rendered stream and the number of its input record."""

    number: int
    text: str


def frame(number: int, text: str) -> bytes:
    """One record of the text output: its separator line, then its text half, newline-ended."""
    return f"{RECORD_PREFIX}{number}\n{text}\n".encode()


def _fail(line: int, problem: str) -> Failure[TextError]:
    return Failure(TextError(line=line, problem=problem))


def split_records(rendered: str) -> Result[list[Framed], TextError]:
    """Cut a rendered stream back into its text halves, each with its record number.

    Anything else is a :class:`~sutura.core.text.decode.TextError` naming the 1-based line: text
    before the first separator, a separator with nothing under it, a missing final newline.
    """
    if not rendered:
        return Success([])
    lines = rendered.split("\n")
    if lines.pop():
        return _fail(len(lines) + 1, "the output does not end with a newline")
    marks = [index for index, line in enumerate(lines) if line.startswith(RECORD_PREFIX)]
    if not marks or marks[0] != 0:
        return _fail(1, "expected \\. record <n> before a text half")
    framed: list[Framed] = []
    for start, end in zip(marks, [*marks[1:], len(lines)], strict=True):
        found = _MARKER.fullmatch(lines[start])
        if found is None:
            return _fail(start + 1, "expected \\. record <n>")
        if end == start + 1:
            return _fail(start + 1, "a separator without a text half under it")
        number = int(found.group("number"))
        if framed and number <= framed[-1].number:
            return _fail(start + 1, "record numbers must increase")
        framed.append(Framed(number, "\n".join(lines[start + 1 : end])))
    return Success(framed)
