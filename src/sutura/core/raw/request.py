"""The raw SQL tool's input: ``{"statement": "..."}``, and nothing else.

Kept apart from the read-only check (``raw_statement``), so decoding it needs no SQL parser.
"""

from typing import Annotated, Final

import msgspec

from sutura.core.nouns.frozen import Frozen

MAX_STATEMENT_CHARS: Final = 32_768
"""The longest statement the raw tool reads; a longer one is malformed input."""


class RawStatement(Frozen, frozen=True):
    """The raw tool's input: one SQL statement, read-only, as the caller wrote it."""

    statement: Annotated[str, msgspec.Meta(max_length=MAX_STATEMENT_CHARS)]
