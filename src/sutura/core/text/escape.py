r"""The closed escape set, and the one escaper every text surface uses for untrusted content.

A character is *escaped* when ``not ch.isprintable()`` (every control, format, separator other
than the ASCII space, private-use, unassigned and surrogate code point of the running Python's
Unicode database), when it is a Default_Ignorable_Code_Point
(:mod:`sutura.core.text.ignorable`), or when it is the backslash. It is rendered ``\t``,
``\n``, ``\r`` or ``\\``, otherwise ``\uXXXX`` or ``\UXXXXXXXX`` in lowercase hex. Nothing else
is ever changed.

A *cell* (an answer's value, a column label, a name) adds three rules: NULL is ``\N`` and the
empty string ``\e`` (whole-cell tokens, so no cell renders as nothing; the literal texts ``\N``
and ``\e`` render ``\\N`` and ``\\e``), and a leading ``"`` is ``\u0022`` (so no CSV reader
opens a quoted field). A cell's rendering depends on the cell alone.

>>> escape_cell("a\tb\\")
'a\\tb\\\\'
>>> escape_cell(None), escape_cell(""), escape_cell("\\N")
('\\N', '\\e', '\\\\N')
>>> escape_text("\u202eevil\u200b")
'\\u202eevil\\u200b'
"""

import re
from typing import Final

from returns.result import Failure, Result, Success

from sutura.core.nouns.frozen import Frozen
from sutura.core.text.ignorable import IGNORABLE_RANGES

NULL_TOKEN: Final = "\\N"
EMPTY_TOKEN: Final = "\\e"
LEADING_QUOTE: Final = "\\u0022"

_NAMED: Final = {"\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\"}


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges)


# Ignorables that ``isprintable()`` lets through (combining grapheme joiner, Hangul fillers,
# variation selectors, ...). The non-printable ones are caught by ``isprintable()`` already.
_PRINTABLE_IGNORABLE: Final = re.compile(
    "["
    + _char_class(
        tuple(
            (cp, cp)
            for start, end in IGNORABLE_RANGES
            for cp in range(start, end + 1)
            if chr(cp).isprintable()
        )
    )
    + "]"
)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def is_escaped(ch: str) -> bool:
    r"""Whether the single character ``ch`` belongs to the escape set.

    >>> [is_escaped(c) for c in ("a", " ", "\\", "\u00a0", "\u034f", "é")]
    [False, False, True, True, True, False]
    """
    return ch == "\\" or not ch.isprintable() or _PRINTABLE_IGNORABLE.match(ch) is not None


def is_plain(text: str) -> bool:
    r"""Whether ``text`` holds no escape-set character, so it renders as itself.

    The per-cell guard: C-level checks first, the ignorable search only for non-ASCII text.

    >>> is_plain("Zürich 2024"), is_plain("a\\b"), is_plain("x\ufe0f")
    (True, False, False)
    """
    return (
        text.isprintable()
        and "\\" not in text
        and (text.isascii() or _PRINTABLE_IGNORABLE.search(text) is None)
    )


def is_plain_but_backslashes(text: str) -> bool:
    r"""Whether ``text`` holds no escape-set character besides the backslash: what
    :func:`is_plain` says of it with its backslashes taken out (C-level checks first).

    >>> is_plain_but_backslashes("a\\b"), is_plain_but_backslashes("a\tb")
    (True, False)
    """
    return text.isprintable() and (text.isascii() or _PRINTABLE_IGNORABLE.search(text) is None)


def has_lone_surrogate(text: str) -> bool:
    r"""Whether ``text`` holds a surrogate code point, which strict UTF-8 cannot carry.

    >>> has_lone_surrogate("a\ud800"), has_lone_surrogate("a😀")
    (True, False)
    """
    return not text.isascii() and _SURROGATE.search(text) is not None


def _escaped_char(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    if not is_escaped(ch):
        return ch
    point = ord(ch)
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


_ASCII: Final = {point: _escaped_char(chr(point)) for point in range(0x80)}
_MEMO_LIMIT: Final = 1 << 16


class _Rendering(dict[int, str]):
    """Each code point's rendering, for ``str.translate``: ASCII up front, the rest on sight.

    Bounded: past ``_MEMO_LIMIT`` code points it starts again from ASCII, so hostile text full
    of distinct characters costs time, never unbounded memory.
    """

    def __missing__(self, point: int) -> str:
        if len(self) >= _MEMO_LIMIT:
            self.clear()
            self.update(_ASCII)
        rendered = self[point] = _escaped_char(chr(point))
        return rendered


_RENDERING: Final = _Rendering(_ASCII)


def escape_text(text: str) -> str:
    r"""Render ``text`` with every escape-set character made visible; total, never lossy.

    Used inline (prose lines, failure text, prompt text). A lone surrogate renders as its
    ``\udXXX`` escape; surfaces with a structured half refuse such values instead.

    >>> escape_text("line\r\nnext\u2028\x1b[2K")
    'line\\r\\nnext\\u2028\\u001b[2K'
    """
    return text if is_plain(text) else text.translate(_RENDERING)


def escape_cell(value: str | None) -> str:
    r"""Render one cell: ``\N`` for NULL, ``\e`` for the empty string, else :func:`escape_text`.

    A cell's first character is written ``\u0022`` when it is ``"``: a CSV reader (Python's
    ``csv`` tab dialect, spreadsheets) would otherwise open a quoted field there and merge rows.

    >>> escape_cell("\\e"), escape_cell('"a"b'), escape_cell('a"')
    ('\\\\e', '\\u0022a"b', 'a"')
    """
    if value is None:
        return NULL_TOKEN
    if not value:
        return EMPTY_TOKEN
    if value[0] == '"':
        return LEADING_QUOTE + escape_text(value[1:])
    if value.isprintable() and "\\" not in value and value.isascii():
        return value  # the common case, without a call
    return escape_text(value)


class EscapeError(Frozen, frozen=True):
    """Why a rendered text is not in the escape grammar: the character offset and the problem."""

    offset: int
    problem: str


# One escape sequence, or a backslash followed by whatever it is followed by (to report).
_SEQUENCE: Final = re.compile(r"(\\(?:u[0-9a-f]{4}|U[0-9a-f]{8}|.?))", re.DOTALL)
_UNNAMED: Final = {"\\\\": "\\", "\\t": "\t", "\\n": "\n", "\\r": "\r"}


def _decoded_sequence(sequence: str) -> str | None:
    named = _UNNAMED.get(sequence)
    if named is not None:
        return named
    if len(sequence) not in (6, 10):
        return None
    point = int(sequence[2:], 16)
    wide = len(sequence) == 10
    if point > 0x10FFFF or wide != (point > 0xFFFF) or 0xD800 <= point <= 0xDFFF:
        return None
    ch = chr(point)
    return ch if is_escaped(ch) and ch not in _NAMED else None


def _first_escaped(text: str) -> int:
    return next(i for i, ch in enumerate(text) if is_escaped(ch))


def unescape_text(text: str) -> Result[str, EscapeError]:
    r"""Invert :func:`escape_text`, accepting exactly what it writes (canonical form only).

    >>> unescape_text("a\\tb\\u200b").unwrap()
    'a\tb\u200b'
    >>> unescape_text("a\\x").failure()
    EscapeError(offset=1, problem='unknown escape sequence')
    >>> unescape_text("a\\u0041").failure().problem
    'escape of a character outside the escape set, or not in canonical form'
    """
    if is_plain(text):
        return Success(text)
    decoded: list[str] = []
    offset = 0
    for index, piece in enumerate(_SEQUENCE.split(text)):
        if index % 2 == 0 and not is_plain(piece):
            return Failure(EscapeError(offset=offset + _first_escaped(piece), problem=_RAW))
        value = piece if index % 2 == 0 else _decoded_sequence(piece)
        if value is None:
            return Failure(EscapeError(offset=offset, problem=_problem_of(piece)))
        decoded.append(value)
        offset += len(piece)
    return Success("".join(decoded))


_RAW: Final = "a character of the escape set appears unescaped"


def _problem_of(sequence: str) -> str:
    if len(sequence) == 1:
        return "a backslash ends the text"
    if sequence[1] in "uU" and len(sequence) > 2:
        return "escape of a character outside the escape set, or not in canonical form"
    if sequence[1] in "uU":
        return "\\u takes four and \\U eight lowercase hex digits"
    if sequence in (NULL_TOKEN, EMPTY_TOKEN):
        return "\\N and \\e stand only for a whole cell"
    return "unknown escape sequence"


def unescape_cell(token: str) -> Result[str | None, EscapeError]:
    r"""Invert :func:`escape_cell`: ``\N`` is NULL, ``\e`` the empty string.

    >>> unescape_cell("\\N").unwrap() is None, unescape_cell("\\e").unwrap()
    (True, '')
    >>> unescape_cell("").failure().problem
    'an empty cell; the empty string is written \\e'
    """
    if token == NULL_TOKEN:
        return Success(None)
    if token == EMPTY_TOKEN:
        return Success("")
    if not token:
        return Failure(
            EscapeError(offset=0, problem="an empty cell; the empty string is written \\e")
        )
    if token[0] == '"':
        return Failure(EscapeError(offset=0, problem="a cell's leading quote is written \\u0022"))
    if token.startswith(LEADING_QUOTE):
        return unescape_text(token[len(LEADING_QUOTE) :]).map(_quoted).alt(_shifted)
    return unescape_text(token).map(_as_optional)


def _quoted(text: str) -> str | None:
    return '"' + text


def _shifted(error: EscapeError) -> EscapeError:
    return EscapeError(offset=error.offset + len(LEADING_QUOTE), problem=error.problem)


def _as_optional(text: str) -> str | None:
    return text
