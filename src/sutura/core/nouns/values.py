"""``list_values``: the distinct values of one dimension of one metric, a page at a time.

The request names a metric and one of its dimensions, optionally a search text (a substring,
matched without regard to the case of ``A``–``Z``) and a page (``page_size`` values from
``offset``). The reply is a page of values in a stable order (ascending, SQL NULL last and
stated once), with the offset of the next page when there is one, and provenance.

A page is bounded three ways: at most ``page_size`` values (at most :data:`MAX_PAGE_SIZE`),
within the call's deadline, and at most :data:`REPLY_VALUE_BYTES` of values: a page that
would hold more stops early, says so (``cut: reply_bytes``) and gives the next offset; a single
value longer than the bound is refused (``value_too_long``), never cut.

>>> ValuesRequest(metric="revenue", dimension="region").page_size
100
"""

from enum import StrEnum
from typing import Annotated, Final

import msgspec

from sutura.core.nouns.answer import Provenance
from sutura.core.nouns.frozen import Frozen

MAX_PAGE_SIZE: Final = 1000
"""The most values one page holds."""

DEFAULT_PAGE_SIZE: Final = 100
"""How many values a page holds unless the caller asks for fewer or more."""

MAX_OFFSET: Final = 1_000_000_000
"""The largest offset a caller may ask from (the deadline bounds how far an engine reads)."""

REPLY_VALUE_BYTES: Final = 65_536
"""The most bytes the values of one page take, counted as the longer of each value's two
spellings (escaped text, JSON): 64 KiB."""

SEARCH_CHARACTERS: Final = 200
"""The longest search text ``list_values`` takes."""

NAME_CHARACTERS: Final = 256
"""The longest metric or dimension name ``list_values`` takes."""


class ValuesRequest(Frozen, frozen=True, omit_defaults=True):
    """``list_values``'s input: a metric, one of its dimensions, a search text, a page."""

    metric: Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_CHARACTERS)]
    dimension: Annotated[str, msgspec.Meta(min_length=1, max_length=NAME_CHARACTERS)]
    search: (
        Annotated[
            str,
            msgspec.Meta(
                min_length=1,
                max_length=SEARCH_CHARACTERS,
                description="Keep values containing it (A-Z in either case).",
            ),
        ]
        | None
    ) = None
    page_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_PAGE_SIZE)] = DEFAULT_PAGE_SIZE
    offset: Annotated[
        int, msgspec.Meta(ge=0, le=MAX_OFFSET, description="A reply's next_offset.")
    ] = 0


class Cut(StrEnum):
    """Why a page holds fewer values than asked although more follow."""

    REPLY_BYTES = "reply_bytes"


class Values(Frozen, tag="values", tag_field="outcome", frozen=True, omit_defaults=True):
    """One page of a dimension's distinct values.

    Attributes:
        metric: The metric asked.
        dimension: The dimension asked.
        offset: How many values come before this page.
        values: The page's values as canonical text, ascending; ``None`` is SQL NULL (last).
        next_offset: Where the next page starts; absent on the last page.
        cut: Why the page stopped before ``page_size`` values (absent when it did not).
        provenance: The definitions, source and instant the values were read with.
    """

    metric: str
    dimension: str
    offset: int
    values: list[str | None]
    provenance: Provenance
    next_offset: int | None = None
    cut: Cut | None = None
