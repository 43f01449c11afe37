"""The record separator of the text output: it cannot occur inside a text half."""

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Outcome, Provenance
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.text.decode import decode_outcome as decode_text
from sutura.core.tool.codec import halves_of
from sutura.transports.batch.framing import Framed, frame, split_records
from sutura.transports.batch.stream import render_stream
from tests.core.untrusted_samples import answer
from tests.transports.batch.samples import jsonl, refused

HOSTILE = '\t\n\r\\"\x00\x1b\x85\u2028\u200b\u202e\ufeff. rowsecd:N'
TEXT = st.text(st.characters(exclude_categories=["Cs"]) | st.sampled_from(HOSTILE), max_size=12)
NAME = TEXT | st.sampled_from(["\\. record 1", "\\. rows: 0", "", "\\N", "\\e"])
NO_SPACE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters=" "), min_size=1)


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    """Answers of 1-3 columns whose labels, cells and names may be hostile (no surrogate)."""
    width = draw(st.integers(1, 3))
    row = st.lists(st.none() | NAME, min_size=width, max_size=width)
    provenance = Provenance(
        time_zone="UTC",
        definition_version=draw(NAME),
        definition_digest=draw(NO_SPACE),
        metric_digests=draw(st.lists(st.builds(MetricDigest, metric=NAME, digest=NO_SPACE))),
        executed_as=draw(st.lists(st.builds(ExecutedAs, source=NAME, posture=NO_SPACE))),
    )
    columns = draw(st.lists(NAME, min_size=width, max_size=width))
    return Answer(columns=columns, rows=draw(st.lists(row, max_size=4)), provenance=provenance)


OUTCOMES = answers() | st.sampled_from(list(RefusalCode)).map(refused)


@given(st.lists(OUTCOMES, max_size=5))
def test_a_rendered_stream_splits_back_into_the_outcomes_it_was_rendered_from(
    items: list[Outcome],
) -> None:
    sink = io.BytesIO()
    summary = render_stream(io.BytesIO(jsonl(items)), sink)
    assert (summary.records, summary.rendered, summary.invalid) == (len(items),) * 2 + (0,)
    framed = split_records(sink.getvalue().decode()).unwrap()
    assert [f.number for f in framed] == list(range(1, len(items) + 1))
    assert [decode_text(f.text).unwrap() for f in framed] == items


def test_a_value_spelling_the_separator_stays_inside_its_record() -> None:
    item = answer(["\\. record 2"], [["\\. record 3"], ["x\n\\. record 4"]])
    [framed] = split_records(frame(1, halves_of(item).text).decode()).unwrap()
    assert decode_text(framed.text).unwrap() == item


def test_the_record_number_is_the_input_records_number() -> None:
    data = frame(2, "refused (metric_unknown): a") + frame(10, "refused (metric_unknown): b")
    assert split_records(data.decode()).unwrap() == [
        Framed(2, "refused (metric_unknown): a"),
        Framed(10, "refused (metric_unknown): b"),
    ]


def test_empty_output_has_no_records() -> None:
    assert split_records("").unwrap() == []


@pytest.mark.parametrize(
    ("rendered", "line", "problem"),
    [
        ("refused (metric_unknown): a\n", 1, "expected \\. record <n> before a text half"),
        ("\\. record 1\nrefused (metric_unknown): a", 2, "the output does not end with a newline"),
        ("\\. record 1\n", 1, "a separator without a text half under it"),
        ("\\. record 1\n\\. record 2\nx\n", 1, "a separator without a text half under it"),
        ("\\. record 01\nx\n", 1, "expected \\. record <n>"),
        ("\\. record 2\nx\n\\. record 2\ny\n", 3, "record numbers must increase"),
    ],
)
def test_a_stream_out_of_the_grammar_is_a_text_error_naming_the_line(
    rendered: str, line: int, problem: str
) -> None:
    error = split_records(rendered).failure()
    assert (error.line, error.problem) == (line, problem)
