"""The shipped decoder: it inverts the renderer exactly and names the line of anything else."""

from pathlib import Path

import msgspec
import pytest

from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Provenance, Refused
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.text.decode import TextError, decode_answer, decode_outcome, decode_refusal
from sutura.core.text.render import render_answer, render_refusal
from sutura.core.text.untrusted import CELLS, Case
from tests.core.untrusted_samples import DIGEST, answer

REPRESENTABLE = [case for case in CELLS if "surrogate" not in case.name]
GOOD = (
    "a\tb\n1\t\\N\n\\. rows: 1\ndefinitions: v1 (digest ab)\n  m: cd\ntime zone: UTC\n"
    "read from w as: p"
)


@pytest.mark.parametrize("case", REPRESENTABLE, ids=lambda c: c.name)
def test_decoding_inverts_rendering_for_every_corpus_cell(case: Case) -> None:
    value = case.value
    hostile = Provenance(
        time_zone="UTC",
        definition_version=value,
        definition_digest=DIGEST,
        metric_digests=[MetricDigest(metric=value, digest="ab")],
        executed_as=[ExecutedAs(source=value, posture="shared-service-user")],
    )
    original = Answer(columns=[value, "n"], rows=[[value, None], ["", value]], provenance=hostile)
    assert decode_answer(render_answer(original).unwrap()).unwrap() == original


def test_decoding_a_rendered_refusal_gives_back_the_refusal() -> None:
    for code in RefusalCode:
        decoded = decode_outcome(render_refusal(refusal(code))).unwrap()
        assert decoded == Refused(reason=refusal(code))


def test_decode_outcome_tells_an_answer_from_a_refusal_spelled_in_its_header() -> None:
    original = answer(["refused (metric_unknown): x"], [])
    assert decode_outcome(render_answer(original).unwrap()).unwrap() == original


def test_a_well_formed_text_decodes_to_columns_rows_and_provenance() -> None:
    decoded = decode_answer(GOOD).unwrap()
    assert (decoded.columns, decoded.rows) == (["a", "b"], [["1", None]])
    assert decoded.provenance.executed_as == [ExecutedAs(source="w", posture="p")]


def test_the_computed_at_line_ends_the_trailer_and_decodes_to_provenance_computed_at() -> None:
    text = GOOD + "\ncomputed at: 2026-12-01T13:05:07.250Z"
    decoded = decode_answer(text).unwrap()
    assert decoded.provenance.computed_at == "2026-12-01T13:05:07.250Z"
    assert render_answer(decoded).unwrap() == text
    assert decode_answer(GOOD).unwrap().provenance.computed_at == ""


def test_a_cell_spelling_the_computed_at_line_stays_a_row() -> None:
    spelled = "\\. rows: 0\ncomputed at: 1999-01-01T00:00:00.000Z"
    original = answer(["m"], [[spelled]])
    stamped = Answer(
        columns=original.columns,
        rows=original.rows,
        provenance=msgspec.structs.replace(original.provenance, computed_at="2026-12-01T00:00Z"),
    )
    text = render_answer(stamped).unwrap()
    assert text.count("\ncomputed at: ") == 1 and text.endswith("computed at: 2026-12-01T00:00Z")
    assert decode_answer(text).unwrap() == stamped


_READ = "time zone: UTC\nrange asked: 2024-03-10/2024-04-20\nrange: 2024-03-01/2024-05-01"


def test_the_range_asked_line_comes_before_the_ranges_read_and_decodes_to_provenance() -> None:
    text = GOOD.replace("time zone: UTC", _READ)
    decoded = decode_answer(text).unwrap()
    assert decoded.provenance.range_asked == "2024-03-10/2024-04-20"
    assert decoded.provenance.ranges == ["2024-03-01/2024-05-01"]
    assert render_answer(decoded).unwrap() == text
    assert decode_answer(GOOD).unwrap().provenance.range_asked == ""


def test_a_cell_spelling_the_range_asked_line_stays_a_row() -> None:
    spelled = "\\. rows: 0\nrange asked: 1999-01-01/2000-01-01"
    text = render_answer(answer(["m"], [[spelled]])).unwrap()
    decoded = decode_answer(text).unwrap()
    assert decoded.rows == [[spelled]] and decoded.provenance.range_asked == ""


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            GOOD.replace("time zone: UTC", "time zone: UTC\nrange asked: 2024-03-10 /2024-04-20"),
            TextError(line=7, problem="expected range asked: <start>/<end>"),
        ),
        (
            GOOD.replace(
                "time zone: UTC",
                "time zone: UTC\nrange: 2024-03-01/2024-05-01\nrange asked: 2024-03-10/2024-04-20",
            ),
            TextError(line=8, problem="expected read from <source> as: <posture>"),
        ),
    ],
)
def test_a_range_asked_line_out_of_the_grammar_is_a_typed_error(
    text: str, error: TextError
) -> None:
    assert decode_answer(text).failure() == error


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("a\n1", TextError(line=2, problem="no row-count line (\\. rows: <n>)")),
        (
            GOOD.replace("\\. rows: 1", "\\. rows: 2"),
            TextError(line=3, problem="the row-count line says 2 rows, the table has 1"),
        ),
        (
            GOOD.replace("\\. rows: 1", "\\. rows: 01"),
            TextError(line=3, problem="expected \\. rows: <n>, after a header line"),
        ),
        (GOOD + "\n\\. rows: 1", TextError(line=8, problem="a second line starting \\.")),
        (
            "a\n\\. rows: " + "9" * 5000 + "\ndefinitions: v (digest a)",
            TextError(line=2, problem="expected \\. rows: <n>, after a header line"),
        ),
        (GOOD.replace("1\t\\N", "1"), TextError(line=2, problem="1 cells where the header has 2")),
        (
            GOOD.replace("1\t\\N", "1\t"),
            TextError(
                line=2, problem="character 1: an empty cell; the empty string is written \\e"
            ),
        ),
        (
            GOOD.replace("1\t\\N", "1\t\\q"),
            TextError(line=2, problem="character 1: unknown escape sequence"),
        ),
        (
            GOOD.replace("1\t\\N", "1\tx\u202e"),
            TextError(
                line=2, problem="character 2: a character of the escape set appears unescaped"
            ),
        ),
        (GOOD.replace("a\tb", "a\t\\N"), TextError(line=1, problem="a name cannot be NULL")),
        (
            GOOD.replace("(digest ab)", "(digest a b)"),
            TextError(line=4, problem="expected definitions: <version> (digest <digest>)"),
        ),
        (
            GOOD.replace("  m: cd", " m: cd"),
            TextError(line=5, problem="expected time zone: <IANA zone name>"),
        ),
        (
            GOOD.replace("time zone: UTC", "time zone: Europe/Par is"),
            TextError(line=6, problem="expected time zone: <IANA zone name>"),
        ),
        (
            GOOD + "\nextra",
            TextError(line=8, problem="expected read from <source> as: <posture>"),
        ),
        (GOOD + "\n", TextError(line=8, problem="expected read from <source> as: <posture>")),
        (
            GOOD + "\ncomputed at: 2026-12-01 13:05",
            TextError(line=8, problem="expected computed at: <UTC instant>"),
        ),
        (
            GOOD + "\ncomputed at: ",
            TextError(line=8, problem="expected computed at: <UTC instant>"),
        ),
        (
            GOOD.replace("read from", "computed at: 2026-12-01T13:05:07.250Z\nread from"),
            TextError(line=7, problem="expected read from <source> as: <posture>"),
        ),
        (
            GOOD.split("\ndefinitions")[0],
            TextError(line=4, problem="no definitions line after the row-count line"),
        ),
    ],
)
def test_text_outside_the_grammar_is_a_typed_error_naming_its_line(
    text: str, error: TextError
) -> None:
    assert decode_answer(text).failure() == error


@pytest.mark.parametrize(
    "text",
    ["refused (no_such_code): x", "refused metric_unknown: x", "refused (metric_unknown):", "x"],
)
def test_a_malformed_refusal_line_is_a_typed_error(text: str) -> None:
    assert decode_refusal(text).failure().line == 1


def test_a_crlf_text_is_not_silently_accepted() -> None:
    assert decode_answer(GOOD.replace("\n", "\r\n")).failure().line >= 1


def test_the_worked_example_in_the_format_document_is_what_the_renderer_writes() -> None:
    document = (Path(__file__).parents[3] / "docs" / "text-format.md").read_text(encoding="utf-8")
    example = document.split("Worked example")[1].split("```\n")[1]
    provenance = Provenance(
        time_zone="UTC",
        definition_version="v7",
        definition_digest="3f2a",
        metric_digests=[MetricDigest(metric="revenue", digest="9c1e")],
        executed_as=[ExecutedAs(source="warehouse", posture="shared-service-user")],
    )
    hostile = "\\. rows: 1\ndefinitions: v1 (digest 00)\n  revenue: 00"
    rows: list[list[str | None]] = [[""], [None], ["a\tb"], ["a\\tb"], [hostile]]
    original = Answer(columns=["metric"], rows=rows, provenance=provenance)
    assert render_answer(original).unwrap() + "\n" == example
    assert decode_answer(example.removesuffix("\n")).unwrap() == original
