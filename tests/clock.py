"""Halves compared across processes: each process reads its own wall clock, so the instant an
answer was computed (``computed_at``; the text half's last line) and the instant a catalog's
sources were asked where the data is (``as_of``; each ``data:`` line's end) are left out."""

import re
from typing import Final

_STRUCTURED: Final = re.compile(r',"computed_at":"[^"]*"')
_TEXT: Final = re.compile(r"\ncomputed at: [^\n]*(?=\n?\Z)")
_AS_OF: Final = re.compile(r'(?m)^(data: from \S+ to \S+) \(as of [^)\n]*\)$|,"as_of":"[^"]*"')


def unclocked(half: str) -> str:
    """``half`` (either) without its ``computed_at`` and ``as_of`` fields and their lines.

    >>> unclocked('{"ranges":[],"computed_at":"2024-06-01T12:00:00.000Z"}}')
    '{"ranges":[]}}'
    >>> unclocked("time zone: UTC\\ncomputed at: 2024-06-01T12:00:00.000Z")
    'time zone: UTC'
    >>> unclocked("time zone: UTC\\ncomputed at: 2024-06-01T12:00:00.000Z\\n")
    'time zone: UTC\\n'
    >>> unclocked("data: from 2023-01-01 to 2025-12-31 (as of 2026-02-01T09:00:00.000Z)")
    'data: from 2023-01-01 to 2025-12-31'
    """
    return _AS_OF.sub(lambda m: m.group(1) or "", _TEXT.sub("", _STRUCTURED.sub("", half)))
