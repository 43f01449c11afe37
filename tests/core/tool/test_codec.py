"""The codec: both halves from one value or a refusal for both; typed decoding errors."""

import msgspec
import pytest

from sutura.core.catalog.view.catalog import CatalogBody, CatalogView
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.raw.outcome import RawRows
from sutura.core.text.render import render_answer, render_refusal
from sutura.core.text.untrusted import CELLS, Case
from sutura.core.tool.codec import (
    CodecError,
    Halves,
    decode_catalog,
    decode_outcome,
    decode_raw_outcome,
    encode,
    halves_of,
    outcome_halves,
    raw_halves,
    schema_hook,
)
from tests.core.untrusted_samples import answer, pinned
from tests.refusals import expect_refusal

UNREPRESENTABLE = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)


def test_an_answer_yields_its_text_half_and_its_json_from_the_one_value() -> None:
    original = answer(["period", "revenue"], [["2024-01-01", "1.50"]])
    halves = outcome_halves(original).unwrap()
    assert halves.text == render_answer(original).unwrap()
    assert halves.structured == msgspec.json.encode(original)
    assert halves.structured_object()["outcome"] == "answer"


def test_a_refusal_yields_its_line_and_its_json() -> None:
    refused = Refused(reason=refusal(RefusalCode.GRAIN_NOT_SUPPORTED))
    halves = halves_of(refused)
    assert halves == Halves(render_refusal(refused.reason), msgspec.json.encode(refused))
    assert halves.structured_object()["reason"]["status"] == 422


@pytest.mark.parametrize("case", CELLS, ids=lambda c: c.name)
def test_each_corpus_value_round_trips_byte_exact_through_json_or_refuses_both_halves(
    case: Case,
) -> None:
    original = answer([case.value, "n"], [[case.value, None], ["", case.value]])
    result = outcome_halves(original)
    if "surrogate" in case.name:
        expect_refusal(result, RefusalCode.VALUE_NOT_REPRESENTABLE)
        assert halves_of(original) == halves_of(Refused(reason=UNREPRESENTABLE))
        return
    data = result.unwrap().structured
    decoded = decode_outcome(data).unwrap()
    assert decoded == original and encode(decoded).unwrap() == data
    assert isinstance(decoded, Answer)
    assert decoded.rows[0][0] == case.value


def test_a_value_json_cannot_carry_refuses_the_structured_half_too() -> None:
    # The text half escapes a surrogate in a refusal detail; the JSON half cannot carry it.
    odd = Refused(reason=msgspec.structs.replace(UNREPRESENTABLE, detail="\ud800"))
    expect_refusal(encode(odd), RefusalCode.VALUE_NOT_REPRESENTABLE)
    assert halves_of(odd) == halves_of(Refused(reason=UNREPRESENTABLE))


def test_a_catalog_with_a_lone_surrogate_is_refused_on_both_halves_not_one() -> None:
    view = CatalogView.of(pinned(metric_description="bad \udc00"), CatalogProse.QUOTED)
    expect_refusal(view.text(), RefusalCode.VALUE_NOT_REPRESENTABLE)
    expect_refusal(encode(view.body), RefusalCode.VALUE_NOT_REPRESENTABLE)


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"{", CodecError(path="$", problem="not valid JSON")),
        (
            b'{"outcome": "answer", "columns": [1]}',
            CodecError(path="$.columns[0]", problem="Expected `str`, got `int`"),
        ),
        (
            b'{"outcome": "answer", "columns": [], "rows": []}',
            CodecError(path="$", problem="Object missing required field `provenance`"),
        ),
        (
            b'{"outcome": "refusal", "reason": '
            b'{"code": "secret_value", "status": 1, "detail": ""}}',
            CodecError(path="$.reason.code", problem="invalid value"),
        ),
        (
            b'{"outcome": "answer", "columns": [], "rows": [], "secret_key": 1}',
            CodecError(path="$", problem="an unknown field is present"),
        ),
        (b'{"outcome": "secret_tag"}', CodecError(path="$.outcome", problem="invalid value")),
    ],
)
def test_a_malformed_structured_outcome_is_a_typed_error_that_echoes_no_value(
    data: bytes, error: CodecError
) -> None:
    found = decode_outcome(data).failure()
    assert found == error
    assert "secret" not in found.sentence()


def test_a_malformed_catalog_or_raw_outcome_is_a_typed_error() -> None:
    assert decode_catalog(b"[]").failure().path == "$"
    assert decode_raw_outcome(b'{"outcome": "raw_rows", "columns": 1}').failure() == CodecError(
        path="$.columns", problem="Expected `array`, got `int`"
    )


def test_a_carried_description_has_a_string_schema() -> None:
    schema = msgspec.json.schema(CatalogBody, schema_hook=schema_hook)
    dimension = schema["$defs"]["CatalogDimension"]
    assert dimension["properties"]["description"] == {"type": "string"}
    assert "description" not in dimension["required"]
    with pytest.raises(NotImplementedError):
        schema_hook(complex)


def test_raw_halves_always_yield_a_pair_even_for_an_unrepresentable_row() -> None:
    halves = raw_halves(RawRows(columns=["a"], rows=[["\ud800"]]))
    decoded = decode_raw_outcome(halves.structured).unwrap()
    assert decoded == msgspec.json.decode(halves.structured, type=type(decoded))
    assert halves.structured_object()["code"] == "value_not_representable"
    assert "refused (value_not_representable)" in halves.text
