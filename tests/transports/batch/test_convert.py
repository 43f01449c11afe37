"""One record into its rendering, or a typed problem; both targets from the one value."""

import msgspec
import pytest

from sutura.core.nouns.answer import Answer, Outcome
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.text.decode import decode_outcome as decode_text
from sutura.core.tool.codec import halves_of
from sutura.transports.batch.convert import Target, convert
from sutura.transports.batch.framing import split_records
from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.records import RawRecord
from tests.core.untrusted_samples import answer, provenance
from tests.transports.batch.samples import loose_json, outcomes, refused


def _text_round_trip(item: Outcome, number: int = 1) -> Outcome:
    rendered = convert(RawRecord(number, halves_of(item).structured), Target.TEXT)
    assert isinstance(rendered, bytes)
    [framed] = split_records(rendered.decode()).unwrap()
    assert framed.number == number
    return decode_text(framed.text).unwrap()


@pytest.mark.parametrize("item", outcomes(), ids=lambda item: halves_of(item).text[:30])
def test_a_structured_outcome_renders_to_a_text_half_that_decodes_to_the_same_outcome(
    item: Outcome,
) -> None:
    assert _text_round_trip(item, number=7) == item


@pytest.mark.parametrize("item", outcomes(), ids=lambda item: halves_of(item).text[:30])
def test_any_spelling_of_an_outcome_renders_to_its_canonical_json_line(item: Outcome) -> None:
    rendered = convert(RawRecord(1, loose_json(item)), Target.JSON)
    assert rendered == halves_of(item).structured + b"\n"


def _problem(data: bytes) -> RecordError:
    result = convert(RawRecord(9, data), Target.TEXT)
    assert isinstance(result, RecordError)
    assert result.number == 9
    return result


def test_invalid_utf8_is_a_typed_error_naming_the_byte_never_a_replacement() -> None:
    data = halves_of(answer(["m"], [["caf?"]])).structured.replace(b"caf?", b"caf\xe9")
    error = _problem(data)
    assert error.problem is RecordProblem.NOT_UTF8
    at = data.index(b"\xe9") + 1
    assert error.detail == f"byte {at} is not part of a UTF-8 character"


def test_utf8_encoded_surrogates_are_not_utf8() -> None:
    assert _problem(b'"\xed\xa0\x80"').problem is RecordProblem.NOT_UTF8


def test_a_lone_surrogate_escape_is_not_representable() -> None:
    data = halves_of(answer(["m"], [["a?b"]])).structured.replace(b"a?b", b"a\\ud800b")
    error = _problem(data)
    assert error.problem is RecordProblem.NOT_REPRESENTABLE
    assert "lone surrogate" in error.detail


@pytest.mark.parametrize("data", [b"not json", b"NaN", b'{"a": Infinity}', b""])
def test_text_that_is_not_json_is_not_json(data: bytes) -> None:
    assert _problem(data) == RecordError(
        number=9, problem=RecordProblem.NOT_JSON, detail="not valid JSON"
    )


def test_json_of_the_wrong_shape_names_the_path_and_never_the_value() -> None:
    data = b'{"outcome": "answer", "columns": ["m"], "rows": [[7031]], "provenance": {}}'
    error = _problem(data)
    assert error.problem is RecordProblem.NOT_AN_OUTCOME
    assert error.detail == (
        "malformed structured value: $.rows[0][0]: Expected `str | null`, got `int`"
    )


def test_an_unknown_field_is_not_an_outcome_and_is_not_echoed() -> None:
    item = halves_of(refused()).structured
    error = _problem(item[:-1] + b', "ignore_previous_instructions": true}')
    assert error.problem is RecordProblem.NOT_AN_OUTCOME
    assert "ignore" not in error.detail


def test_a_refusal_whose_status_is_not_its_codes_is_not_an_outcome() -> None:
    data = halves_of(refused(RefusalCode.METRIC_UNKNOWN)).structured.replace(b"404", b"200")
    error = _problem(data)
    assert error.problem is RecordProblem.NOT_AN_OUTCOME
    assert "$.reason.status" in error.detail


@pytest.mark.parametrize(
    "item",
    [
        Answer(columns=["a", "b"], rows=[["1"]], provenance=provenance()),
        Answer(columns=[], rows=[], provenance=provenance()),
        Answer(
            columns=["m"],
            rows=[["1"]],
            provenance=msgspec.structs.replace(provenance(), definition_digest="ab cd"),
        ),
    ],
    ids=["a row narrower than the header", "no columns", "a space in a digest"],
)
def test_an_outcome_the_text_half_cannot_carry_is_not_representable(item: Answer) -> None:
    for target in Target:
        result = convert(RawRecord(3, msgspec.json.encode(item)), target)
        assert isinstance(result, RecordError)
        assert result.problem is RecordProblem.NOT_REPRESENTABLE
        assert result.number == 3 and "(value_not_representable)" in result.detail
