r"""The raw SQL tool's outcome: ungoverned rows, or a refusal carrying the database's own words.

Nothing here is certified and no key is provenance-shaped: a raw result cannot be mistaken
for an answer on either half. Its text half opens with its own boundary notice; rows are
escaped as an answer's are and end with the row-count line. A database failure text is
untrusted content (whoever wrote the statement influenced it): it is escaped, quoted per line
with ``> ``, never re-executed, and cut visibly past :data:`FAILURE_TEXT_CAP` characters
(``…[+N chars]``). A failure text holding a lone surrogate cannot be shown faithfully, so the
refusal carries no text at all.

>>> text = render_raw(raw_failure('syntax error at or near "x"\nLINE 1: x')).unwrap()
>>> print(text.split("\n", 2)[2])
> syntax error at or near "x"
> LINE 1: x
"""

from enum import StrEnum
from typing import Annotated, Final, assert_never

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.notices import FAILURE_NOTICE, FAILURE_TEXT_CAP, ROWS_NOTICE
from sutura.core.text.escape import escape_cell, escape_text, has_lone_surrogate
from sutura.core.text.render import render_header, render_rows, row_count_line


class RawRefusalCode(StrEnum):
    """Why the raw tool returned no rows."""

    STATEMENT_FAILED = "statement_failed"
    NOT_ONE_STATEMENT = "not_one_statement"
    NOT_READ_ONLY = "not_read_only"
    TOO_MANY_ROWS = "too_many_rows"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    RESOURCES_EXHAUSTED = "resources_exhausted"
    VALUE_NOT_SUPPORTED = "value_not_supported"
    VALUE_NOT_REPRESENTABLE = "value_not_representable"
    SOURCE_UNAVAILABLE = "source_unavailable"


DETAILS: Final = {
    RawRefusalCode.STATEMENT_FAILED: (
        "The database refused the statement; its own words follow, quoted."
    ),
    RawRefusalCode.NOT_ONE_STATEMENT: (
        "The text is not exactly one SQL statement; send one query, with no second statement "
        "after a semicolon. Nothing ran."
    ),
    RawRefusalCode.NOT_READ_ONLY: (
        "The statement is not one read-only query (SELECT, VALUES, WITH … SELECT, or a set "
        "operation of them), or it could not be confirmed as one. Nothing ran."
    ),
    RawRefusalCode.TOO_MANY_ROWS: (
        "The statement returns more rows than this deployment sends; it is refused, never cut. "
        "Aggregate, filter or add a LIMIT."
    ),
    RawRefusalCode.DEADLINE_EXCEEDED: (
        "The statement did not finish before the deadline and was stopped; make it cheaper."
    ),
    RawRefusalCode.RESOURCES_EXHAUSTED: (
        "The statement needed more memory or resources than the database allows; make it cheaper."
    ),
    RawRefusalCode.VALUE_NOT_SUPPORTED: (
        "The result holds a value of a type with no canonical text (a list, a struct, bytes, an "
        "interval, a UUID, …); cast that column to text in the statement."
    ),
    RawRefusalCode.VALUE_NOT_REPRESENTABLE: (
        "The result holds a value that strict UTF-8 text cannot carry; it is refused whole "
        "rather than altered."
    ),
    RawRefusalCode.SOURCE_UNAVAILABLE: (
        "The data source cannot be reached right now; nothing ran. Try again later."
    ),
}
_WITHHELD: Final = "The database refused the statement; its words cannot be shown faithfully."


def raw_status(code: RawRefusalCode) -> int:
    """The HTTP status a raw refusal is sent with.

    >>> raw_status(RawRefusalCode.NOT_READ_ONLY), raw_status(RawRefusalCode.TOO_MANY_ROWS)
    (403, 413)
    """
    match code:
        case RawRefusalCode.NOT_READ_ONLY:
            return 403
        case RawRefusalCode.TOO_MANY_ROWS:
            return 413
        case RawRefusalCode.SOURCE_UNAVAILABLE:
            return 503
        case (
            RawRefusalCode.STATEMENT_FAILED
            | RawRefusalCode.NOT_ONE_STATEMENT
            | RawRefusalCode.DEADLINE_EXCEEDED
            | RawRefusalCode.RESOURCES_EXHAUSTED
            | RawRefusalCode.VALUE_NOT_SUPPORTED
            | RawRefusalCode.VALUE_NOT_REPRESENTABLE
        ):
            return 422
        case _:
            assert_never(code)


class RawRows(Frozen, frozen=True, tag="raw_rows", tag_field="outcome"):
    """Rows a raw statement read: text cells, ``None`` for NULL. Never certified."""

    columns: list[str]
    rows: list[list[str | None]]


class RawRefusal(Frozen, frozen=True, tag="raw_refusal", tag_field="outcome", omit_defaults=True):
    """A raw refusal: ``detail`` is sutura's sentence; ``database_text`` the database's words.

    ``database_text`` is untrusted and capped; ``database_text_cut`` counts the characters
    left out past the cap. Both are absent when there is nothing faithful to show.
    """

    code: RawRefusalCode
    detail: str
    database_text: str | msgspec.UnsetType = msgspec.UNSET
    database_text_cut: Annotated[int, msgspec.Meta(ge=0)] = 0


RawOutcome = RawRows | RawRefusal


def raw_refusal(code: RawRefusalCode) -> RawRefusal:
    """A refusal with ``code`` and its fixed detail, carrying no database text."""
    return RawRefusal(code=code, detail=DETAILS[code])


def raw_failure(database_text: str | None) -> RawRefusal:
    r"""The refusal for a failed statement, carrying the database's words capped, or none.

    ``None`` is a failure with no words of the database's own to show (a driver's complaint).

    >>> raw_failure("x" * 2005).database_text_cut
    5
    >>> raw_failure("bad \ud800").database_text
    UNSET
    """
    if database_text is None or has_lone_surrogate(database_text):
        return RawRefusal(code=RawRefusalCode.STATEMENT_FAILED, detail=_WITHHELD)
    shown = database_text[:FAILURE_TEXT_CAP]
    return RawRefusal(
        code=RawRefusalCode.STATEMENT_FAILED,
        detail=DETAILS[RawRefusalCode.STATEMENT_FAILED],
        database_text=shown,
        database_text_cut=len(database_text) - len(shown),
    )


def _rows_text(outcome: RawRows) -> Result[str, RawRefusal]:
    width = len(outcome.columns)
    parts = render_header(outcome.columns).bind(
        lambda header: render_rows(outcome.rows, width).map(
            lambda body: [header, body] if outcome.rows else [header]
        )
    )
    return parts.map(
        lambda lines: "\n".join([ROWS_NOTICE, *lines, row_count_line(len(outcome.rows))])
    ).alt(lambda _: raw_refusal(RawRefusalCode.VALUE_NOT_REPRESENTABLE))


def raw_refusal_text(outcome: RawRefusal) -> str:
    """The text half of a raw refusal: notice, refusal line, the database's words quoted.

    The failure notice opens it when the database's words follow; otherwise the rows notice.
    """
    refused = f"refused ({outcome.code.value}): {escape_cell(outcome.detail)}"
    if not isinstance(outcome.database_text, str):
        return f"{ROWS_NOTICE}\n{refused}"
    lines = [FAILURE_NOTICE, refused]
    lines += [f"> {escape_text(line)}" for line in outcome.database_text.split("\n")]
    if outcome.database_text_cut:
        lines[-1] += f"…[+{outcome.database_text_cut} chars]"
    return "\n".join(lines)


def _faithful(outcome: RawRefusal) -> Result[RawRefusal, RawRefusal]:
    if has_lone_surrogate(outcome.detail):
        return Failure(raw_refusal(RawRefusalCode.VALUE_NOT_REPRESENTABLE))
    if isinstance(outcome.database_text, str) and has_lone_surrogate(outcome.database_text):
        return Failure(RawRefusal(code=RawRefusalCode.STATEMENT_FAILED, detail=_WITHHELD))
    return Success(outcome)


def render_raw(outcome: RawOutcome) -> Result[str, RawRefusal]:
    """The text half of a raw outcome, or the refusal whose halves stand in for both halves."""
    match outcome:
        case RawRows():
            return _rows_text(outcome)
        case RawRefusal():
            return _faithful(outcome).map(raw_refusal_text)
        case _:
            assert_never(outcome)
