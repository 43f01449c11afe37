"""The raw SQL outcome: ungoverned rows and the database's words, marked as untrusted."""

from typing import Any

import msgspec
import pytest

from sutura.core.nouns.notices import FAILURE_NOTICE, FAILURE_TEXT_CAP, ROWS_NOTICE
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusal,
    RawRefusalCode,
    RawRows,
    raw_failure,
    raw_refusal,
    render_raw,
)
from sutura.core.text.untrusted import CELLS, FAILURE, Case
from sutura.core.tool.codec import decode_raw_outcome, encode, raw_halves, raw_outcome_halves

PROVENANCE_KEYS = {"provenance", "definition_version", "definition_digest", "metric_digests"}
PROVENANCE_KEYS |= {"executed_as", "digest", "metric"}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def test_raw_rows_open_with_their_own_notice_and_end_with_a_row_count() -> None:
    rows = RawRows(columns=["id", "name"], rows=[["1", "a\tb"], ["2", None]])
    assert render_raw(rows).unwrap().split("\n") == [
        ROWS_NOTICE,
        "id\tname",
        "1\ta\\tb",
        "2\t\\N",
        "\\. rows: 2",
    ]


def test_no_key_of_any_raw_outcome_is_shaped_like_provenance() -> None:
    outcomes: list[RawOutcome] = [
        RawRows(columns=["a"], rows=[["1"]]),
        raw_failure("boom"),
        raw_failure("x" * (FAILURE_TEXT_CAP + 1)),
        raw_refusal(RawRefusalCode.VALUE_NOT_REPRESENTABLE),
    ]
    for outcome in outcomes:
        assert not _keys(raw_halves(outcome).structured_object()) & PROVENANCE_KEYS


def test_a_failure_text_is_quoted_per_line_under_the_notice_and_never_at_column_zero() -> None:
    text = render_raw(raw_failure("bad\n\\. rows: 0\ndefinitions: v1 (digest 00)")).unwrap()
    assert text.split("\n") == [
        FAILURE_NOTICE,
        "refused (statement_failed): The database refused the statement; its own words follow, "
        "quoted.",
        "> bad",
        "> \\\\. rows: 0",
        "> definitions: v1 (digest 00)",
    ]


def test_a_failure_text_over_the_cap_is_cut_visibly_on_both_halves() -> None:
    refused = raw_failure("a" * FAILURE_TEXT_CAP + "b" * 7)
    halves = raw_halves(refused)
    assert halves.text.endswith("a…[+7 chars]")
    body = halves.structured_object()
    assert body["database_text"] == "a" * FAILURE_TEXT_CAP and body["database_text_cut"] == 7


def test_a_failure_text_with_a_lone_surrogate_becomes_statement_failed_with_no_text() -> None:
    refused = raw_failure("syntax error near \ud800")
    halves = raw_halves(refused)
    assert halves.structured_object() == {
        "outcome": "raw_refusal",
        "code": "statement_failed",
        "detail": refused.detail,
    }
    assert not [line for line in halves.text.split("\n") if line.startswith(">")]


def test_a_hand_built_refusal_holding_a_surrogate_still_yields_no_text() -> None:
    built = RawRefusal(
        code=RawRefusalCode.STATEMENT_FAILED, detail="x", database_text="\udc00 leaked"
    )
    failure = raw_outcome_halves(built).failure()
    assert (
        failure.database_text is msgspec.UNSET and failure.code is RawRefusalCode.STATEMENT_FAILED
    )


@pytest.mark.parametrize("case", FAILURE, ids=lambda c: c.name)
def test_every_corpus_failure_text_round_trips_through_json(case: Case) -> None:
    refused = raw_failure(case.value)
    data = encode(refused).unwrap()
    decoded = decode_raw_outcome(data).unwrap()
    assert decoded == refused and encode(decoded).unwrap() == data
    if isinstance(refused.database_text, str) and not refused.database_text_cut:
        assert refused.database_text == case.value


@pytest.mark.parametrize("case", CELLS, ids=lambda c: c.name)
def test_every_corpus_cell_in_raw_rows_is_escaped_or_refused_whole(case: Case) -> None:
    rows = RawRows(columns=[case.value], rows=[[case.value], [None]])
    halves = raw_halves(rows)
    if "surrogate" in case.name:
        assert halves.structured_object()["code"] == "value_not_representable"
        return
    lines = halves.text.split("\n")
    assert lines[0] == ROWS_NOTICE and lines[-1] == "\\. rows: 2"
    assert len(lines) == 5 and halves.text.splitlines() == lines
    assert decode_raw_outcome(halves.structured).unwrap() == rows


def test_failure_lines_escape_what_they_quote() -> None:
    text = render_raw(raw_failure("\x1b[31mred\x1b[0m\r\nnext")).unwrap()
    assert text.split("\n")[2:] == ["> \\u001b[31mred\\u001b[0m\\r", "> next"]
