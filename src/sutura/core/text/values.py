r"""One page of a dimension's values: the page cut from the rows read, and its text half.

The rows read are at most one more than the page (:mod:`sutura.core.sql.values`): the extra
row says another page follows. A page also stops before its values would take more than
:data:`~sutura.core.nouns.values.REPLY_VALUE_BYTES` (each value counted as the longer of its
escaped text and its JSON), and says so; a first value longer than that alone is refused
(``value_too_long``), never cut.

The text half is an answer's table and trailer (one column, named for the dimension; every
value escaped as any cell is, so no value writes a line of its own), then one line about the
next page::

    region
    EMEA
    \N
    \. rows: 2
    definitions: v1 (digest ab)
      revenue: cd
    time zone: UTC
    read from main as: shared-service-user
    last page

>>> from sutura.core.nouns.values import ValuesRequest
>>> page = page_of(["a", "b", "c"], ValuesRequest(metric="m", dimension="d", page_size=2))
>>> page.unwrap()
Page(values=['a', 'b'], next_offset=2, cut=None)
"""

from collections.abc import Sequence
from typing import Final, NamedTuple

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.nouns.values import REPLY_VALUE_BYTES, Cut, Values, ValuesRequest
from sutura.core.text.escape import escape_cell
from sutura.core.text.render import render_header, render_rows, render_trailer

NEXT_OFFSET_PREFIX: Final = "next offset: "
LAST_PAGE: Final = "last page"
CUT_LINE: Final = f"cut: the page's values reached {REPLY_VALUE_BYTES} bytes"
_TOO_LONG: Final = refusal(RefusalCode.VALUE_TOO_LONG)


class Page(NamedTuple):
    """The values of one page, where the next starts (none after the last) and why it was cut."""

    values: list[str | None]
    next_offset: int | None
    cut: Cut | None


def value_bytes(value: str | None) -> int:
    """What ``value`` counts against the page's bound: the longer of its two spellings.

    >>> value_bytes("EMEA"), value_bytes(None), value_bytes("\u202e")
    (6, 4, 6)
    """
    text = len(escape_cell(value).encode("utf-8", "surrogatepass"))
    return max(text, len(msgspec.json.encode(value)))


def page_of(rows: Sequence[str | None], request: ValuesRequest) -> Result[Page, Refusal]:
    """The page ``request`` asked for from ``rows`` (at most one more than the page)."""
    values: list[str | None] = []
    spent = 0
    for index, value in enumerate(rows[: request.page_size]):
        spent += value_bytes(value)
        if spent > REPLY_VALUE_BYTES:
            if index == 0:
                return Failure(_TOO_LONG)
            return Success(Page(values, request.offset + index, Cut.REPLY_BYTES))
        values.append(value)
    more = len(rows) > request.page_size
    return Success(Page(values, request.offset + len(values) if more else None, None))


def render_values(page: Values) -> Result[str, Refusal]:
    r"""The text half of a page of values, or the refusal of both halves (a lone surrogate).

    >>> from sutura.core.nouns.answer import ExecutedAs, Provenance
    >>> provenance = Provenance(time_zone="UTC", definition_version="v1",
    ...     definition_digest="ab", metric_digests=[],
    ...     executed_as=[ExecutedAs(source="main", posture="shared-service-user")])
    >>> page = Values(metric="m", dimension="region", offset=0,
    ...     values=["a\n\\. rows: 9", None], provenance=provenance, next_offset=2)
    >>> print(render_values(page).unwrap())
    region
    a\n\\. rows: 9
    \N
    \. rows: 2
    definitions: v1 (digest ab)
    time zone: UTC
    read from main as: shared-service-user
    next offset: 2
    """
    header = render_header([page.dimension])
    rows = render_rows([[value] for value in page.values], 1) if page.values else Success("")
    trailer = render_trailer(page.provenance, len(page.values))
    paging = [] if page.cut is None else [CUT_LINE]
    paging.append(
        LAST_PAGE if page.next_offset is None else f"{NEXT_OFFSET_PREFIX}{page.next_offset}"
    )
    return header.bind(
        lambda head: rows.bind(
            lambda body: trailer.map(
                lambda tail: "\n".join([head, *([body] if page.values else []), tail, *paging])
            )
        )
    )
