"""Halves compared across processes: each process reads its own wall clock, so the instant an
answer was computed (``computed_at``; the text half's last line) is left out of both."""

import re
from typing import Final

_STRUCTURED: Final = re.compile(r',"computed_at":"[^"]*"')
_TEXT: Final = re.compile(r"\ncomputed at: [^\n]*(?=\n?\Z)")


def unclocked(half: str) -> str:
    """``half`` (either) without its ``computed_at`` field or its ``computed at:`` line.

    >>> unclocked('{"ranges":[],"computed_at":"2024-06-01T12:00:00.000Z"}}')
    '{"ranges":[]}}'
    >>> unclocked("time zone: UTC\\ncomputed at: 2024-06-01T12:00:00.000Z")
    'time zone: UTC'
    >>> unclocked("time zone: UTC\\ncomputed at: 2024-06-01T12:00:00.000Z\\n")
    'time zone: UTC\\n'
    """
    return _TEXT.sub("", _STRUCTURED.sub("", half))
