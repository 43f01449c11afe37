"""Both halves of an answer written as its rows arrive, and its rows read back from them."""

import msgspec
import pytest

from sutura.core.nouns.answer import Answer
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.nouns.rows import WrittenRows
from sutura.core.tool.codec import decode_outcome, encode, outcome_halves
from sutura.core.tool.written import AnswerWriter, Written
from tests.core.untrusted_samples import answer, provenance

ROWS = [[f"2024-01-{day:02d}", None if day % 7 == 0 else str(day), ""] for day in range(1, 29)]


def _written(rows: list[list[str | None]], chunk: int) -> Written:
    writer = AnswerWriter(["period", "revenue", "note"])
    for start in range(0, len(rows), chunk):
        writer.add(rows[start : start + chunk])
    return writer.finish(provenance()).unwrap()


@pytest.mark.parametrize("chunk", [1, 5, 28, 100])
def test_the_written_halves_are_the_codecs_halves_of_the_same_answer(chunk: int) -> None:
    written = _written(ROWS, chunk)
    expected = answer(["period", "revenue", "note"], ROWS)
    assert written.halves == outcome_halves(expected).unwrap()
    assert written.answer == expected and expected == written.answer
    assert decode_outcome(written.halves.structured).unwrap() == written.answer


def test_the_rows_read_back_are_a_sequence_of_new_lists() -> None:
    rows = _written(ROWS, 5).answer.rows
    assert isinstance(rows, WrittenRows)
    assert len(rows) == 28 and list(rows) == ROWS
    assert rows[0] == ROWS[0] and rows[-1] == ROWS[-1] and rows[6] == ROWS[6]
    assert rows[3:9] == ROWS[3:9] and rows[::-5] == ROWS[::-5]
    assert repr(rows) == repr(ROWS)
    rows[0][0] = "changed"  # a row read is the caller's own
    assert rows[0] == ROWS[0]
    with pytest.raises(IndexError):
        rows[28]
    with pytest.raises(TypeError):
        hash(rows)


def test_an_answer_of_no_rows_is_written_and_read() -> None:
    written = _written([], 5)
    assert list(written.answer.rows) == [] and len(written.answer.rows) == 0
    assert written.halves == outcome_halves(answer(["period", "revenue", "note"], [])).unwrap()
    assert encode(written.answer).unwrap() == written.halves.structured


def test_a_written_answer_encodes_as_its_structured_half_and_converts_to_plain_values() -> None:
    written = _written(ROWS, 4)
    assert encode(written.answer).unwrap() == written.halves.structured
    assert msgspec.json.decode(written.halves.structured, type=Answer).rows == ROWS


def test_a_row_of_another_width_refuses_both_halves() -> None:
    writer = AnswerWriter(["a", "b"])
    writer.add([["1", "2"], ["3"]])
    assert writer.finish(provenance()).failure().code is RefusalCode.VALUE_NOT_REPRESENTABLE


def test_a_lone_surrogate_in_a_late_chunk_refuses_both_halves() -> None:
    writer = AnswerWriter(["a"])
    writer.add([["1"], ["2"]])
    writer.add([["\ud800"]])
    writer.add([["3"]])
    assert writer.finish(provenance()).failure().code is RefusalCode.VALUE_NOT_REPRESENTABLE
