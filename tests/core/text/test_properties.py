"""P1-P7 of docs/untrusted-content.md, over generated values and over every corpus case.

Hypothesis's ``text()`` leaves surrogates out, so the strategies here add lone surrogates
explicitly, and a test asserts the refusal path they lead to is exercised.
"""

import io

import msgspec
import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from returns.result import Result

from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Provenance, Refused
from sutura.core.nouns.notices import FAILURE_NOTICE, ROWS_NOTICE
from sutura.core.nouns.prose import CatalogProse, catalog_notice
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.raw.outcome import raw_failure
from sutura.core.text.decode import decode_answer
from sutura.core.text.escape import escape_cell, escape_text, has_lone_surrogate, is_escaped
from sutura.core.text.render import render_answer, render_refusal
from sutura.core.text.untrusted import CELLS, FAILURE, PROSE, Case
from sutura.core.tool.codec import catalog_halves, decode_outcome, encode, halves_of, raw_halves
from sutura.core.tool.written import AnswerWriter, Written
from tests.core.untrusted_samples import DIGEST, pinned

HOSTILE = '\t\n\r\\"\x00\x1b\x85\u2028\u200b\u202e\ufeff\U000e0041 '
CLEAN_TEXT = st.text(st.characters(exclude_categories=["Cs"]) | st.sampled_from(HOSTILE))
SURROGATE = st.integers(0xD800, 0xDFFF).map(chr)
WITH_SURROGATE = st.builds(lambda a, s, b: a + s + b, CLEAN_TEXT, SURROGATE, CLEAN_TEXT)
NO_SPACE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters=" "), min_size=1)
DIGESTS = st.text("0123456789abcdef", min_size=1, max_size=64) | NO_SPACE


@st.composite
def clean_answers(draw: st.DrawFn) -> Answer:
    """Answers of 1-4 columns whose every label, cell and name may be hostile (no surrogate)."""
    text = CLEAN_TEXT
    width = draw(st.integers(1, 4))
    cells = st.lists(st.none() | text, min_size=width, max_size=width)
    metric_digests = st.builds(MetricDigest, metric=text, digest=DIGESTS)
    provenance = Provenance(
        time_zone="UTC",
        definition_version=draw(text),
        definition_digest=draw(DIGESTS),
        metric_digests=draw(st.lists(metric_digests, max_size=3)),
        executed_as=draw(
            st.lists(st.builds(ExecutedAs, source=text, posture=NO_SPACE), max_size=2)
        ),
        ranges=draw(st.lists(NO_SPACE, max_size=2)),
        range_asked=draw(st.just("") | NO_SPACE),
    )
    columns = draw(st.lists(text, min_size=width, max_size=width))
    return Answer(columns=columns, rows=draw(st.lists(cells, max_size=6)), provenance=provenance)


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    """A clean answer, or (one time in five) the same with a lone surrogate in one place."""
    answer = draw(clean_answers())
    if draw(st.integers(0, 4)):
        return answer
    poison = draw(WITH_SURROGATE)
    place = draw(st.sampled_from(["label", "cell", "version", "source"]))
    if place == "cell" and answer.rows:
        rows = [list(row) for row in answer.rows]
        rows[-1][0] = poison
        return msgspec.structs.replace(answer, rows=rows)
    if place in ("version", "source"):
        provenance = msgspec.structs.replace(
            answer.provenance,
            definition_version=poison,
            executed_as=[ExecutedAs(source=poison, posture="p")],
        )
        return msgspec.structs.replace(answer, provenance=provenance)
    return msgspec.structs.replace(answer, columns=[poison, *answer.columns[1:]])


def _strings(answer: Answer) -> list[str]:
    p = answer.provenance
    names = [p.definition_version, p.definition_digest, *answer.columns]
    names += [s for m in p.metric_digests for s in (m.metric, m.digest)]
    names += [s for e in p.executed_as for s in (e.source, e.posture)]
    names += [*p.ranges, p.range_asked]
    return names + [cell for row in answer.rows for cell in row if cell is not None]


def _assert_text_properties(answer: Answer, text: str) -> None:
    lines = text.split("\n")
    count = len(answer.rows)
    # P1: exact round trip.
    assert decode_answer(text).unwrap() == answer
    # P2: 1 + rows table lines under every line splitter; columns - 1 tabs each.
    assert text.splitlines() == lines
    assert io.StringIO(text, newline=None).read().split("\n") == lines
    assert all(line.count("\t") == len(answer.columns) - 1 for line in lines[: 1 + count])
    # P3: one row-count line, found at the same place top-down and bottom-up, count verifies.
    marks = [i for i, line in enumerate(lines) if line.startswith("\\.")]
    assert marks == [1 + count] and lines[marks[0]] == f"\\. rows: {count}"
    provenance = answer.provenance
    trailer = 2 + len(provenance.metric_digests) + len(provenance.executed_as)
    trailer += len(provenance.ranges) + bool(provenance.range_asked)
    assert len(lines) == 2 + count + trailer
    # P4: no escape-set character raw (bar the separators and escape backslashes); UTF-8 safe.
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]
    text.encode("utf-8")
    # P7: a cell renders as it renders alone, whatever its neighbours.
    for row, line in zip(answer.rows, lines[1 : 1 + count], strict=True):
        assert line.split("\t") == [escape_cell(cell) for cell in row]


def _assert_answer_properties(answer: Answer, *, generated: bool = False) -> None:
    result = render_answer(answer)
    halves = halves_of(answer)
    if any(map(has_lone_surrogate, _strings(answer))):
        if generated:
            event("lone surrogate: refused")
        # P6: a refusal carries no partial output, on either half.
        assert result.failure() == refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
        assert halves.text == render_refusal(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))
        assert decode_outcome(halves.structured).unwrap() == Refused(reason=result.failure())
        assert _written(answer).failure() == result.failure()
        return
    _assert_text_properties(answer, result.unwrap())
    # The structured half: a byte-exact round trip.
    assert halves.text == result.unwrap()
    assert decode_outcome(halves.structured).unwrap() == answer
    assert encode(decode_outcome(halves.structured).unwrap()).unwrap() == halves.structured
    # Both halves written as the rows arrive, in chunks, are the same bytes, the same rows.
    written = _written(answer).unwrap()
    assert written.halves == halves and written.answer == answer
    assert encode(written.answer).unwrap() == halves.structured


def _written(answer: Answer) -> Result[Written, Refusal]:
    """Both halves of ``answer`` written a chunk at a time (chunks of 1, 2, 3... rows)."""
    writer = AnswerWriter(answer.columns)
    rows, size = list(answer.rows), 1
    while rows:
        writer.add(rows[:size])
        rows, size = rows[size:], size + 1
    return writer.finish(answer.provenance)


@given(answers())
def test_every_generated_answer_holds_p1_to_p7_or_is_refused_whole(answer: Answer) -> None:
    _assert_answer_properties(answer, generated=True)


def test_the_generated_answers_include_lone_surrogates_and_reach_the_refusal_path() -> None:
    refused: list[Answer] = []

    @given(answers())
    def collect(answer: Answer) -> None:
        if render_answer(answer).value_or(None) is None:
            refused.append(answer)

    collect()
    assert refused
    assert all(any(map(has_lone_surrogate, _strings(a))) for a in refused)


@given(WITH_SURROGATE)
def test_a_lone_surrogate_in_any_cell_refuses_the_answer(value: str) -> None:
    hostile = Answer(
        columns=["m"],
        rows=[["1"], [value]],
        provenance=Provenance(
            time_zone="UTC",
            definition_version="v",
            definition_digest="ab",
            metric_digests=[],
            executed_as=[],
        ),
    )
    assert render_answer(hostile).failure().code is RefusalCode.VALUE_NOT_REPRESENTABLE


def _corpus_answers(case: Case) -> list[Answer]:
    v = case.value
    provenance = Provenance(
        time_zone="UTC",
        definition_version=v,
        definition_digest=DIGEST,
        metric_digests=[MetricDigest(metric=v, digest="ab")],
        executed_as=[ExecutedAs(source=v, posture="shared-service-user")],
    )
    return [
        Answer(columns=["m"], rows=[[v], [v]], provenance=provenance),
        Answer(columns=[v, v, "x"], rows=[[v, None, ""], ["", v, v]], provenance=provenance),
    ]


@pytest.mark.parametrize("case", CELLS, ids=lambda c: c.name)
def test_every_corpus_cell_holds_p1_to_p7_or_is_refused_whole(case: Case) -> None:
    for answer in _corpus_answers(case):
        _assert_answer_properties(answer)


@pytest.mark.parametrize("case", CELLS, ids=lambda c: c.name)
def test_a_one_column_answer_holding_its_own_trailer_keeps_a_single_trailer(case: Case) -> None:
    first = render_answer(_corpus_answers(case)[0]).value_or("")
    for line in first.split("\n"):
        _assert_answer_properties(
            Answer(columns=["m"], rows=[[line]], provenance=_corpus_answers(case)[0].provenance)
        )


def _quoted(text: str) -> list[str]:
    return [f"> {escape_text(line)}" for line in text.split("\n")] if text else []


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_every_corpus_prose_is_quoted_line_by_line_after_one_notice(
    case: Case, prose: CatalogProse
) -> None:
    view = CatalogView.of(pinned(case.value, "dim: " + case.value), prose)
    result = catalog_halves(view)
    if has_lone_surrogate(case.value) and prose is CatalogProse.QUOTED:
        assert result.failure() == refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)
        return
    text = result.unwrap().text
    lines = text.split("\n")
    # P5: the notice once, first; every prose line after it starts "> ", and only prose does.
    assert lines[0] == catalog_notice(prose) and lines.count(catalog_notice(prose)) == 1
    expected = _quoted(case.value) + _quoted("dim: " + case.value)
    assert [line for line in lines if line.startswith("> ")] == (
        expected if prose is CatalogProse.QUOTED else []
    )
    assert text.splitlines() == lines
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]


@pytest.mark.parametrize("case", FAILURE, ids=lambda c: c.name)
def test_every_corpus_failure_text_is_quoted_escaped_and_capped_visibly(case: Case) -> None:
    refused = raw_failure(case.value)
    halves = raw_halves(refused)
    lines = halves.text.split("\n")
    notice = ROWS_NOTICE if has_lone_surrogate(case.value) else FAILURE_NOTICE
    assert lines[0] == notice and lines.count(notice) == 1
    assert lines[1].startswith("refused (statement_failed): ")
    quoted = lines[2:]
    assert all(line.startswith("> ") for line in quoted)
    assert halves.text.splitlines() == lines
    assert not [ch for ch in halves.text if is_escaped(ch) and ch not in "\n\\"]
    if has_lone_surrogate(case.value):
        assert quoted == [] and "database_text" not in msgspec.json.decode(halves.structured)
    elif len(case.value) > 2000:
        assert quoted[-1].endswith(f"…[+{len(case.value) - 2000} chars]")
    else:
        assert quoted == _quoted(case.value) or (case.value == "" and quoted == ["> "])
