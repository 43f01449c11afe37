"""Knowledge documents: parsed strictly, checked against the catalog, every error at its key.

One test per error class of each kind (the issue's list: a dangling ``means``, a caveat about an
unknown metric, an example whose question is refused, a phrase both defined and not, a missing
``audience``), and the rule that lets a per-caller view keep knowledge by its metrics.
"""

import datetime

import msgspec
import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import Document
from sutura.core.definitions.audience import OPEN, Restricted, admits
from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Knowledge,
    MeansMetric,
    MeansValue,
    NotDefined,
)
from sutura.core.definitions.model import Catalog, Metric
from sutura.core.nouns.question import FilterEq, Top
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.settings import LimitsSettings
from tests.core.catalog_samples import (
    CAVEAT,
    EXAMPLE,
    GLOSSARY_NORTH,
    GLOSSARY_SALES,
    KNOWLEDGE,
    NOT_DEFINED,
    REVENUE,
    SAMPLE,
    parse_error,
    parsed,
)


def _documents(**replaced: str) -> list[Document]:
    texts = {**SAMPLE, **KNOWLEDGE}
    for name, text in replaced.items():
        texts[name.replace("__", "/") + ".md"] = text
    return [parsed(label, text) for label, text in sorted(texts.items())]


def _catalog(**replaced: str) -> Catalog:
    result = check_catalog(_documents(**replaced))
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _sentences(*limits: LimitsSettings, **replaced: str) -> list[str]:
    result = check_catalog(_documents(**replaced), limits=(*limits, LimitsSettings())[0])
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def _parse_sentence(text: str, label: str = "k.md") -> str:
    return parse_error(label, text).sentence()


# --- each kind parses to its value ------------------------------------------------------------


def test_every_knowledge_kind_parses_and_the_catalog_holds_it_sorted() -> None:
    knowledge = _catalog().knowledge
    assert knowledge.glossary == (
        GlossaryTerm(
            term="northern sales",
            synonyms=(),
            means=MeansValue(metric="revenue", dimension="region", value="north"),
        ),
        GlossaryTerm(
            term="sales",
            synonyms=("turnover", "takings"),
            means=MeansMetric(metric="revenue"),
            description="What the shop charged.",
        ),
    )
    assert knowledge.caveats == (
        Caveat(
            name="late_refunds",
            about=("revenue", "paid_share"),
            description="Refunds arrive up to 30 days late.",
        ),
    )
    assert knowledge.not_defined == (
        NotDefined(
            phrase="churn",
            synonyms=("attrition",),
            description="Nothing here counts customers who left; ask for paid_share instead.",
        ),
    )
    (example,) = knowledge.examples
    assert (example.name, example.asked) == (
        "northern_revenue_by_month",
        ("How much did the north sell each month of 2024?",),
    )
    question = example.question
    assert (question.metrics, question.grain, question.range.start) == (
        ["revenue"],
        "month",
        datetime.date(2024, 1, 1),
    )
    assert question.filters == [FilterEq(dimension="region", value="north")]
    assert question.top == Top(n=5, by="revenue")


def test_a_catalog_of_knowledge_alone_about_nothing_is_refused_at_every_reference() -> None:
    documents = [parsed(label, text) for label, text in sorted(KNOWLEDGE.items())]
    result = check_catalog(documents)
    assert not is_successful(result)
    keys = [(e.file, e.key) for e in result.failure()]
    assert ("knowledge/sales.md", "means.metric") in keys
    assert ("knowledge/late_refunds.md", "about[0].metric") in keys
    assert ("knowledge/northern_revenue.md", "question") in keys


# --- strict documents: unknown keys at every depth, one-of forms, words ------------------------


@pytest.mark.parametrize(
    ("text", "old", "new", "sentence"),
    [
        (GLOSSARY_SALES, "term: sales", "term: sales\ncolour: red", "k.md:4: colour: unknown key"),
        (
            GLOSSARY_SALES,
            "  metric: revenue",
            "  metric: revenue\n  weight: 2",
            "k.md:7: means.weight: unknown key",
        ),
        (
            CAVEAT,
            "  - metric: revenue",
            "  - metric: revenue\n    why: because",
            "k.md:6: about[0].why: unknown key",
        ),
        (NOT_DEFINED, "phrase: churn", "phrase: churn\nmeans: x", "k.md:4: means: unknown key"),
        (
            EXAMPLE,
            "  grain: month",
            "  grain: month\n  sql: SELECT * FROM payroll",
            "k.md:9: question.sql: unknown field",
        ),
        (
            EXAMPLE,
            "    - {op: eq, dimension: region, value: north}",
            "    - {op: eq, dimension: region, value: north, predicate: '1=1'}",
            "k.md:11: question.filters[0].predicate: unknown field",
        ),
        (
            EXAMPLE,
            "  top: {n: 5, by: revenue}",
            "  top: {n: 5, by: revenue, limit: 3}",
            "k.md:12: question.top.limit: unknown field",
        ),
    ],
)
def test_an_unknown_key_is_refused_at_every_depth_of_every_kind(
    text: str, old: str, new: str, sentence: str
) -> None:
    assert old in text
    assert _parse_sentence(text.replace(old, new)) == sentence


def test_an_example_can_never_carry_sql_anywhere_in_its_question() -> None:
    for field in ("sql", "table", "columns", "predicate", "limit", "query"):
        broken = EXAMPLE.replace("  grain: month", f"  grain: month\n  {field}: x")
        assert _parse_sentence(broken) == f"k.md:9: question.{field}: unknown field"


@pytest.mark.parametrize(
    ("text", "old", "new", "sentence"),
    [
        (
            GLOSSARY_NORTH,
            "means: {metric: revenue, dimension: region, value: north}",
            "means: {metric: revenue, value: north}",
            "k.md:4: means.dimension: missing required key (a value belongs to a dimension)",
        ),
        (
            GLOSSARY_NORTH,
            "means: {metric: revenue, dimension: region, value: north}",
            "means: {metric: revenue, dimension: region}",
            "k.md:4: means.value: missing required key (say which value of the dimension)",
        ),
        (
            GLOSSARY_SALES,
            "synonyms: [turnover, takings]",
            "synonyms: [turnover, Sales]",
            "k.md:4: synonyms[1]: the synonym 'Sales' repeats the phrase itself",
        ),
        (
            NOT_DEFINED,
            "synonyms: [attrition]",
            "synonyms: [attrition, 'Attrition ']",
            "k.md:4: synonyms[1]: the synonym 'Attrition ' repeats synonyms[0]",
        ),
        (
            GLOSSARY_SALES,
            "term: sales",
            'term: "sa\\u202eles"',
            "k.md:3: term: expected words without control or invisible characters",
        ),
        (
            NOT_DEFINED,
            "phrase: churn",
            'phrase: "  "',
            "k.md:3: phrase: expected words without control or invisible characters",
        ),
        (
            GLOSSARY_SALES,
            "  metric: revenue",
            "  metric: net revenue",
            "k.md:6: means.metric: 'net revenue' is not a valid name: a letter or _, then up to 63"
            " letters, digits or _",
        ),
        (CAVEAT, "about:\n  - metric: revenue\n  - metric: paid_share", "about: []", ""),
        (
            CAVEAT,
            "  - metric: paid_share",
            "  - metric: revenue",
            "k.md:6: about[1].metric: the metric 'revenue' is listed twice",
        ),
        (
            EXAMPLE,
            "asked:\n  - How much did the north sell each month of 2024?",
            "asked: []",
            "k.md:4: asked: list at least one way a user might ask this",
        ),
        (
            EXAMPLE,
            "  grain: month",
            "  grain: fortnight",
            "k.md:8: question.grain: expected one of day, week, month, quarter, year",
        ),
        (
            EXAMPLE,
            "  range: {start: 2024-01-01, end: 2025-01-01}",
            "  range: {start: 2024-13-01, end: 2025-01-01}",
            "k.md:9: question.range.start: expected an ISO date (YYYY-MM-DD)",
        ),
        (
            EXAMPLE,
            "  top: {n: 5, by: revenue}",
            "  top: {n: five, by: revenue}",
            "k.md:12: question.top.n: expected `int`, got `str`",
        ),
    ],
)
def test_a_malformed_knowledge_document_is_refused_at_its_key(
    text: str, old: str, new: str, sentence: str
) -> None:
    assert old in text
    expected = (
        sentence or "k.md:4: about: a caveat is about at least one metric: list {metric: <name>}"
    )
    assert _parse_sentence(text.replace(old, new)) == expected


# --- checks across the catalog: the error classes ---------------------------------------


@pytest.mark.parametrize(
    ("means", "sentence"),
    [
        (
            "{metric: profit}",
            "knowledge/sales.md:5: means.metric: no metric is called 'profit'",
        ),
        (
            "{metric: revenue, dimension: colour, value: red}",
            "knowledge/sales.md:5: means.dimension: the metric 'revenue' has no dimension 'colour'",
        ),
        (
            "{metric: revenue, dimension: channel, value: web}",
            "knowledge/sales.md:5: means.dimension: the dimension 'channel' of 'revenue' lists no"
            " values (any value may be filtered on), so a term cannot mean one of them",
        ),
        (
            "{metric: revenue, dimension: region, value: east}",
            "knowledge/sales.md:5: means.value: not one of the allowed values of the dimension"
            " 'region'",
        ),
    ],
)
def test_a_dangling_means_is_refused(means: str, sentence: str) -> None:
    text = GLOSSARY_SALES.replace("means:\n  metric: revenue", f"means: {means}")
    assert _sentences(knowledge__sales=text) == [sentence]


def test_a_caveat_about_an_unknown_metric_is_refused() -> None:
    text = CAVEAT.replace("metric: paid_share", "metric: margin")
    assert _sentences(knowledge__late_refunds=text) == [
        "knowledge/late_refunds.md:6: about[1].metric: no metric is called 'margin'"
    ]


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "metrics: [revenue]",
            "metrics: [margin]",
            "question: ask_metric would refuse this question (metric_unknown): A requested metric"
            " is not in the catalog; read the catalog and use a listed metric name.",
        ),
        (
            "grain: month",
            "grain: week",
            "question: ask_metric would refuse this question (grain_not_supported): The requested"
            " grain is not listed for this metric; use one of the grains the catalog lists.",
        ),
        (
            "value: north}",
            "value: east}",
            "question: ask_metric would refuse this question (dimension_value_not_allowed): A"
            " filter value is not among the dimension's allowed values; use a value the catalog"
            " lists.",
        ),
        (
            "{op: eq, dimension: region, value: north}",
            "{op: lt, dimension: region, value: north}",
            "question.filters[0].op: lt compares numbers, dates and timestamps; this dimension"
            " declares no type",
        ),
        (
            "top: {n: 5, by: revenue}",
            "top: {n: 5, by: paid_share}",
            "question.top.by: must be period or a requested metric",
        ),
        (
            "range: {start: 2024-01-01, end: 2025-01-01}",
            "range: {start: 2025-01-01, end: 2024-01-01}",
            "question.range: start must be before end",
        ),
        (
            "range: {start: 2024-01-01, end: 2025-01-01}",
            "range: {start: 2000-01-01, end: 2025-01-01}",
            "question: ask_metric would refuse this question (time_range_too_long): "
            + refusal(RefusalCode.TIME_RANGE_TOO_LONG).detail,
        ),
    ],
)
def test_an_example_whose_question_would_be_refused_or_is_malformed_is_a_load_error(
    old: str, new: str, sentence: str
) -> None:
    assert old in EXAMPLE
    sentences = _sentences(knowledge__northern_revenue=EXAMPLE.replace(old, new))
    assert [s.split(": ", 1)[1] for s in sentences] == [sentence]
    assert sentences[0].startswith("knowledge/northern_revenue.md:")


def test_an_example_is_resolved_under_the_deployment_s_own_limits() -> None:
    catalog_ok = check_catalog(_documents(), limits=LimitsSettings(max_rows=5))
    assert is_successful(catalog_ok)
    sentences = _sentences(LimitsSettings(max_rows=4))
    assert sentences == [
        "knowledge/northern_revenue.md:12: question.top.n: must not exceed the row limit"
    ]


def test_a_range_last_example_is_counted_back_from_the_day_given() -> None:
    text = EXAMPLE.replace(
        "range: {start: 2024-01-01, end: 2025-01-01}", "range: {last: {count: 3, unit: month}}"
    )
    day = datetime.date(2026, 5, 17)
    assert is_successful(check_catalog(_documents(knowledge__northern_revenue=text), today=day))


@pytest.mark.parametrize(
    ("replaced", "sentence"),
    [
        (
            {"knowledge__churn": NOT_DEFINED.replace("phrase: churn", "phrase: Sales")},
            "knowledge/sales.md:3: term: 'sales' is both defined in the glossary and recorded as"
            " not defined (also in 'knowledge/churn.md' line 3); a word is one or the other",
        ),
        (
            {"knowledge__churn": NOT_DEFINED.replace("[attrition]", "[attrition, takings]")},
            "knowledge/sales.md:4: synonyms[1]: 'takings' is both defined in the glossary and"
            " recorded as not defined (also in 'knowledge/churn.md' line 4); a word is one or the"
            " other",
        ),
        (
            {"knowledge__churn": NOT_DEFINED.replace("phrase: churn", "phrase: Paid  Share")},
            "knowledge/churn.md:3: phrase: the metric 'paid_share' is called this; it is defined",
        ),
    ],
)
def test_a_phrase_both_defined_and_not_is_refused(replaced: dict[str, str], sentence: str) -> None:
    assert _sentences(**replaced) == [sentence]


@pytest.mark.parametrize(
    ("label", "text", "sentence"),
    [
        (
            "knowledge__sales_again",
            GLOSSARY_SALES.replace("[turnover, takings]", "[revenue]").replace(
                "term: sales", "term: SALES"
            ),
            "knowledge/sales_again.md:3: term: 'SALES' is already in the glossary, in"
            " 'knowledge/sales.md' line 3",
        ),
        (
            "knowledge__turnover",
            GLOSSARY_NORTH.replace("term: northern sales", "term: takings"),
            "knowledge/turnover.md:3: term: 'takings' is already in the glossary, in"
            " 'knowledge/sales.md' line 4",
        ),
        (
            "knowledge__churn_again",
            NOT_DEFINED.replace("synonyms: [attrition]", "synonyms: []"),
            "knowledge/churn_again.md:3: phrase: 'churn' is already in the terms not defined, in"
            " 'knowledge/churn.md' line 3",
        ),
        (
            "knowledge__z_caveat",
            CAVEAT,
            "knowledge/z_caveat.md:3: name: another caveat is already called 'late_refunds', in"
            " 'knowledge/late_refunds.md' line 3",
        ),
        (
            "knowledge__z_example",
            EXAMPLE,
            "knowledge/z_example.md:3: name: another example is already called"
            " 'northern_revenue_by_month', in 'knowledge/northern_revenue.md' line 3",
        ),
    ],
)
def test_duplicate_terms_phrases_and_names_are_refused(
    label: str, text: str, sentence: str
) -> None:
    assert _sentences(**{label: text}) == [sentence]


def test_a_metric_without_an_audience_is_refused() -> None:
    text = REVENUE.replace("audience: open\n", "")
    assert _parse_sentence(text, "metrics/revenue.md") == (
        "metrics/revenue.md:1: audience: missing required key"
    )


@pytest.mark.parametrize(
    ("audience", "sentence"),
    [
        ("audience: everyone", "audience: expected open, or {restricted: [audience ids]}"),
        (
            "audience: {restricted: []}",
            "audience.restricted: list at least one audience id, or write open",
        ),
        (
            "audience: {restricted: [finance, finance]}",
            "audience.restricted[1]: the audience 'finance' is listed twice",
        ),
        ("audience: {open: true}", "audience.open: unknown key"),
        ("audience: [open]", "audience: expected text or a mapping, got a list"),
    ],
)
def test_a_malformed_audience_is_refused_at_its_key(audience: str, sentence: str) -> None:
    text = REVENUE.replace("audience: open", audience)
    assert _parse_sentence(text, "metrics/revenue.md").split(":", 2)[2].strip() == sentence


def test_a_restricted_audience_is_pinned_sorted_and_admits_its_members_only() -> None:
    text = REVENUE.replace("audience: open", "audience:\n  restricted: [finance, board]")
    metric = parsed("metrics/revenue.md", text).definition
    assert isinstance(metric, Metric)
    assert metric.audience == Restricted(ids=("board", "finance"))
    assert admits(metric.audience, frozenset({"board"}))
    assert not admits(metric.audience, frozenset({"sales"}))
    assert admits(OPEN, frozenset())


# --- knowledge follows the metrics a view shows -------------------------------------------------


def test_knowledge_follows_the_metrics_shown() -> None:
    knowledge = _catalog().knowledge
    assert knowledge.following(frozenset({"revenue", "paid_share"})) == knowledge
    only_share = knowledge.following(frozenset({"paid_share"}))
    assert only_share == Knowledge(not_defined=knowledge.not_defined)
    only_revenue = knowledge.following(frozenset({"revenue"}))
    assert only_revenue.caveats == ()  # it is also about paid_share, which is hidden
    assert only_revenue.glossary == knowledge.glossary
    assert only_revenue.examples == knowledge.examples


def test_an_example_about_two_metrics_needs_both() -> None:
    (example,) = _catalog().knowledge.examples
    question = msgspec.structs.replace(example.question, metrics=["revenue", "paid_share"])
    pair = Knowledge(examples=(msgspec.structs.replace(example, question=question),))
    assert pair.following(frozenset({"revenue"})).examples == ()
    assert pair.following(frozenset({"revenue", "paid_share"})) == pair
