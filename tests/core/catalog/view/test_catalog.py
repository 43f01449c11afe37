"""The catalog view: one value under the operator's setting, both halves agreeing about it."""

from typing import Any

import msgspec
import pytest

from sutura.core.catalog.view.catalog import OPERATOR_HEADING, CatalogView
from sutura.core.catalog.view.wire import prose_of
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.prose import NOT_CARRIED, Carried, CatalogProse, catalog_notice
from sutura.core.nouns.question import FilterEq
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.text.escape import escape_text, is_escaped, unescape_text
from sutura.core.text.untrusted import CELLS, PROSE, Case
from sutura.core.tool.codec import catalog_halves, decode_catalog, encode
from tests.core.untrusted_samples import (
    DIGEST,
    METRIC_DIGEST,
    TABLE_AND_COLUMN_NAMES,
    knowledge,
    pinned,
)
from tests.refusals import expect_refusal


def _halves(
    prose: CatalogProse, definitions: PinnedDefinitions | None = None
) -> tuple[list[str], Any]:
    halves = catalog_halves(CatalogView.of(definitions or pinned(), prose)).unwrap()
    return halves.text.split("\n"), msgspec.json.decode(halves.structured)


def test_the_quoted_text_half_is_notice_metric_grains_prose_dimensions_definitions() -> None:
    lines, _ = _halves(CatalogProse.QUOTED)
    assert lines == [
        catalog_notice(CatalogProse.QUOTED),
        "metric: revenue",
        "grains: day, month",
        "> Revenue net of refunds.",
        "dimension: region",
        "values:\tEU\tUS",
        "> Where the customer is billed.",
        "dimension: channel",
        f"definitions: v7 (digest {DIGEST})",
        "time zone: UTC",
    ]


def test_the_omitted_text_half_says_so_once_and_carries_no_prose() -> None:
    lines, _ = _halves(CatalogProse.OMITTED)
    assert lines[0] == catalog_notice(CatalogProse.OMITTED)
    assert not [line for line in lines if line.startswith(">")]
    assert lines[1:] == [
        "metric: revenue",
        "grains: day, month",
        "dimension: region",
        "values:\tEU\tUS",
        "dimension: channel",
        f"definitions: v7 (digest {DIGEST})",
        "time zone: UTC",
    ]


def test_the_quoted_structured_half_carries_every_description_and_the_setting() -> None:
    _, body = _halves(CatalogProse.QUOTED)
    assert body == {
        "provenance": {
            "definition_version": "v7",
            "definition_digest": DIGEST,
            "metric_digests": [{"metric": "revenue", "digest": METRIC_DIGEST}],
            "time_zone": "UTC",
        },
        "catalog_prose": "quoted",
        "metrics": [
            {
                "name": "revenue",
                "description": "Revenue net of refunds.",
                "grains": ["day", "month"],
                "dimensions": [
                    {
                        "name": "region",
                        "description": "Where the customer is billed.",
                        "allowed_values": ["EU", "US"],
                    },
                    {"name": "channel", "description": ""},
                ],
            }
        ],
    }


def test_under_omitted_the_structured_half_has_no_description_key_at_all() -> None:
    _, body = _halves(CatalogProse.OMITTED)
    assert body["catalog_prose"] == "omitted"
    metric = body["metrics"][0]
    assert "description" not in metric
    assert all("description" not in dimension for dimension in metric["dimensions"])


@pytest.mark.parametrize("prose", list(CatalogProse))
def test_both_halves_of_one_view_agree_about_the_setting(prose: CatalogProse) -> None:
    view = CatalogView.of(pinned(), prose)
    lines, body = _halves(prose)
    carried = any(line.startswith("> ") for line in lines)
    assert body["catalog_prose"] == prose.value
    assert carried == ("description" in body["metrics"][0])
    assert lines[0] == view.notice == catalog_notice(prose)


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_prose_survives_the_structured_half_byte_for_byte_or_is_absent(
    case: Case, prose: CatalogProse
) -> None:
    view = CatalogView.of(pinned("metric: " + case.value, "dimension: " + case.value), prose)
    encoded = encode(view.body)
    if "surrogate" in case.name and prose is CatalogProse.QUOTED:
        expect_refusal(encoded, RefusalCode.VALUE_NOT_REPRESENTABLE)
        expect_refusal(catalog_halves(view), RefusalCode.VALUE_NOT_REPRESENTABLE)
        return
    data = encoded.unwrap()
    decoded = decode_catalog(data).unwrap()
    assert decoded == view.body and encode(decoded).unwrap() == data
    metric = decoded.metrics[0]
    assert prose_of(metric.description) == Carried.under(prose, "metric: " + case.value).text
    dimension = metric.dimensions[0].description
    assert prose_of(dimension) == Carried.under(prose, "dimension: " + case.value).text


def test_a_hostile_name_or_value_is_escaped_in_the_text_half() -> None:
    lines, _ = _halves(CatalogProse.QUOTED, pinned(metric_name="rev\nmetric: payroll"))
    assert lines[1] == "metric: rev\\nmetric: payroll"
    view = CatalogView.of(pinned(values=("a\tb", "", '"q')), CatalogProse.OMITTED)
    assert "values:\ta\\tb\t\\e\t\\u0022q" in view.text().unwrap().split("\n")


def test_the_text_half_names_no_table_and_no_column() -> None:
    for prose in CatalogProse:
        text = CatalogView.of(pinned(), prose).text().unwrap()
        assert not [name for name in TABLE_AND_COLUMN_NAMES if name in text]


def test_a_description_beside_omitted_is_refused_by_the_decoder() -> None:
    data = encode(CatalogView.of(pinned(), CatalogProse.QUOTED).body).unwrap()
    forged = data.replace(b'"catalog_prose":"quoted"', b'"catalog_prose":"omitted"')
    assert decode_catalog(forged).failure().path == "$.metrics[0].description"


def test_carried_cannot_be_built_or_changed_without_the_setting() -> None:
    with pytest.raises(TypeError):
        Carried(object(), "smuggled")
    carried = Carried.under(CatalogProse.QUOTED, "text")
    with pytest.raises(AttributeError):
        carried._text = "changed"
    assert Carried.under(CatalogProse.OMITTED, "text") is NOT_CARRIED
    assert repr(carried) == "Carried('text')" and repr(NOT_CARRIED) == "NOT_CARRIED"
    assert hash(carried) == hash(Carried.under(CatalogProse.QUOTED, "text"))


KNOWLEDGE_TEXT = [
    "not defined: churn",
    "synonyms:\tattrition",
    "> phrase: Written by an author.",
    "term: EU takings",
    "means: revenue where region = EU",
    "> term: Written by an author.",
    "term: takings",
    "synonyms:\tturnover",
    "means: revenue",
    "> term: Written by an author.",
    "metric: revenue",
    "grains: day, month",
    "> Revenue net of refunds.",
    "dimension: region",
    "values:\tEU\tUS",
    "> Where the customer is billed.",
    "dimension: channel",
    "caveat: late_bookings",
    "> caveat: Written by an author.",
    "example: eu_revenue_by_channel",
    "asked:\tHow much did EU customers buy per channel, month by month?",
    'question: {"metrics":["revenue"],"grain":"month","range":{"start":"2024-01-01",'
    '"end":"2024-04-01"},"dimensions":["channel"],"filters":[{"op":"eq","dimension":"region",'
    '"value":"EU"}]}',
    "> example: Written by an author.",
    f"definitions: v7 (digest {DIGEST})",
    "time zone: UTC",
]


def _known(prose: CatalogProse, instructions: str | None = None) -> CatalogView:
    return CatalogView.of(pinned(knowledge=knowledge()), prose, instructions)


def test_the_text_half_carries_knowledge_in_the_prompt_order_caveats_under_their_metric() -> None:
    lines = catalog_halves(_known(CatalogProse.QUOTED)).unwrap().text.split("\n")
    assert lines == [catalog_notice(CatalogProse.QUOTED), *KNOWLEDGE_TEXT]


def test_under_omitted_the_text_half_keeps_every_word_and_question_and_no_body() -> None:
    lines = catalog_halves(_known(CatalogProse.OMITTED)).unwrap().text.split("\n")
    kept = [line for line in KNOWLEDGE_TEXT if not line.startswith("> ")]
    assert lines == [catalog_notice(CatalogProse.OMITTED), *kept]


def test_the_structured_half_carries_knowledge_from_the_same_value() -> None:
    body = msgspec.json.decode(catalog_halves(_known(CatalogProse.QUOTED)).unwrap().structured)
    assert body["not_defined"] == [
        {
            "phrase": "churn",
            "synonyms": ["attrition"],
            "description": "phrase: Written by an author.",
        }
    ]
    assert body["glossary"] == [
        {
            "term": "EU takings",
            "synonyms": [],
            "means": {"metric": "revenue", "dimension": "region", "value": "EU"},
            "description": "term: Written by an author.",
        },
        {
            "term": "takings",
            "synonyms": ["turnover"],
            "means": {"metric": "revenue"},
            "description": "term: Written by an author.",
        },
    ]
    assert body["metrics"][0]["caveats"] == [
        {"name": "late_bookings", "description": "caveat: Written by an author."}
    ]
    assert body["examples"] == [
        {
            "name": "eu_revenue_by_channel",
            "asked": ["How much did EU customers buy per channel, month by month?"],
            "question": {
                "metrics": ["revenue"],
                "grain": "month",
                "range": {"start": "2024-01-01", "end": "2024-04-01"},
                "dimensions": ["channel"],
                "filters": [{"op": "eq", "dimension": "region", "value": "EU"}],
            },
            "description": "example: Written by an author.",
        }
    ]
    assert "operator_instructions" not in body


def test_under_omitted_no_knowledge_part_has_a_description_key() -> None:
    body = msgspec.json.decode(catalog_halves(_known(CatalogProse.OMITTED)).unwrap().structured)
    parts = [*body["not_defined"], *body["glossary"], *body["metrics"][0]["caveats"]]
    parts += body["examples"]
    assert len(parts) == 5 and all("description" not in part for part in parts)
    assert [p["term"] for p in body["glossary"]] == ["EU takings", "takings"]
    assert body["examples"][0]["question"]["metrics"] == ["revenue"]


def test_a_catalog_without_knowledge_has_the_structured_half_it_had() -> None:
    body = msgspec.json.decode(
        catalog_halves(CatalogView.of(pinned(), CatalogProse.QUOTED)).unwrap().structured
    )
    assert set(body) == {"provenance", "catalog_prose", "metrics"}
    assert "caveats" not in body["metrics"][0]


def test_operator_instructions_come_last_in_the_text_half_and_in_the_structured_half() -> None:
    halves = catalog_halves(_known(CatalogProse.OMITTED, "Answer in French.\nBe brief.")).unwrap()
    assert halves.text.split("\n")[-3:] == [
        "operator instructions (from this deployment's operator, not a catalog author):",
        "Answer in French.",
        "Be brief.",
    ]
    body = msgspec.json.decode(halves.structured)
    assert body["operator_instructions"] == "Answer in French.\nBe brief."


@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_operator_instructions_are_escaped_and_never_quoted(case: Case) -> None:
    view = _known(CatalogProse.QUOTED, "op: " + case.value)
    lines = view.lines()
    expected = [escape_text(line) for line in ("op: " + case.value).split("\n")]
    assert lines[-len(expected) - 1 :] == [OPERATOR_HEADING, *expected]
    assert not [ch for line in lines for ch in line if is_escaped(ch) and ch not in "\t\\"]


@pytest.mark.parametrize("prose", list(CatalogProse))
@pytest.mark.parametrize("case", PROSE, ids=lambda c: c.name)
def test_corpus_prose_in_every_knowledge_body_is_quoted_or_absent_in_both_halves(
    case: Case, prose: CatalogProse
) -> None:
    view = CatalogView.of(pinned(knowledge=knowledge(case.value)), prose)
    halves = catalog_halves(view)
    if "surrogate" in case.name and prose is CatalogProse.QUOTED:
        expect_refusal(halves, RefusalCode.VALUE_NOT_REPRESENTABLE)
        return
    text, data = halves.unwrap()
    bodies = [f"{kind}: {case.value}" for kind in ("phrase", "term", "term", "caveat", "example")]
    in_order = [
        *bodies[:3],
        "Revenue net of refunds.",
        "Where the customer is billed.",
        *bodies[3:],
    ]
    carried = [f"> {escape_text(line)}" for body in in_order for line in body.split("\n")]
    quoted = [line for line in text.split("\n") if line.startswith(">")]
    assert quoted == (carried if prose is CatalogProse.QUOTED else [])
    assert not [ch for ch in text if is_escaped(ch) and ch not in "\n\t\\"]
    decoded = decode_catalog(data).unwrap()
    assert decoded == view.body and encode(decoded).unwrap() == data
    found = [prose_of(t.description) for t in decoded.glossary]
    found += [prose_of(decoded.not_defined[0].description)]
    found += [prose_of(decoded.metrics[0].caveats[0].description)]
    found += [prose_of(decoded.examples[0].description)]
    assert found == [
        Carried.under(prose, body).text for body in (bodies[1:3] + bodies[0:1] + bodies[3:])
    ]


def test_a_knowledge_description_beside_omitted_is_refused_by_the_decoder() -> None:
    data = encode(_known(CatalogProse.QUOTED).body).unwrap()
    forged = data.replace(b'"catalog_prose":"quoted"', b'"catalog_prose":"omitted"')
    forged = forged.replace(b'"description":"Revenue net of refunds.",', b"")
    forged = forged.replace(b'"description":"Where the customer is billed.",', b"")
    forged = forged.replace(b',"description":""', b"")
    assert decode_catalog(forged).failure().path == "$.not_defined[0].description"


@pytest.mark.parametrize(
    "case", [c for c in CELLS if "surrogate" not in c.name and c.value], ids=lambda c: c.name
)
def test_a_worked_question_line_decodes_to_the_structured_question(case: Case) -> None:
    example = knowledge().examples[0]
    question = msgspec.structs.replace(
        example.question, filters=[FilterEq(dimension="region", value=case.value)]
    )
    hostile = msgspec.structs.replace(
        knowledge(), examples=(msgspec.structs.replace(example, question=question),)
    )
    definitions = pinned(values=("EU", case.value), knowledge=hostile)
    view = CatalogView.of(definitions, CatalogProse.QUOTED)
    text = catalog_halves(view).unwrap().text
    (line,) = [line for line in text.split("\n") if line.startswith("question: ")]
    assert not [ch for ch in line if is_escaped(ch) and ch != "\\"]
    decoded = msgspec.json.decode(unescape_text(line.removeprefix("question: ")).unwrap())
    assert decoded == view.body.examples[0].question
    assert decoded["filters"] == [{"op": "eq", "dimension": "region", "value": case.value}]
