"""Derived metrics in the catalog: parsed strictly, aligned at load, pinned over their referents."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

import datetime

import msgspec
import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.model import Catalog, DerivedOp, ZeroDenominator
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.question import convert_question
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import LimitsSettings
from sutura.core.tool.seen import seen_by
from tests.core.catalog_samples import REVENUE, parse_error, sample_documents


def _derived(
    derived: str = "{op: ratio, of: [paid_share, revenue], zero_denominator: yields_null}",
    grains: str = "[month]",
    dimensions: str = "[]",
    audience: str = "open",
    name: str = "share_per_euro",
) -> str:
    return (
        f"---\nkind: metric\nname: {name}\nderived: {derived}\ngrains: {grains}\n"
        f"dimensions: {dimensions}\naudience: {audience}\n---\nPaid share per euro.\n"
    )


def _sentences(documents: list[Document]) -> list[str]:
    result = check_catalog(documents)
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def _catalog(**replaced: str) -> Catalog:
    result = check_catalog(sample_documents(**replaced))
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def test_a_derived_metric_is_parsed_checked_and_kept_apart_from_measured_metrics() -> None:
    catalog = _catalog(metrics__share_per_euro=_derived())
    derived = catalog.derived_metric("share_per_euro")
    assert derived is not None
    assert (derived.op, derived.of, derived.grains) == (
        DerivedOp.RATIO,
        ("paid_share", "revenue"),
        (Grain.MONTH,),
    )
    assert derived.zero_denominator is ZeroDenominator.YIELDS_NULL
    assert derived.description == "Paid share per euro."
    assert catalog.metric("share_per_euro") is None


@pytest.mark.parametrize(
    ("derived", "expected"),
    [
        (
            "{op: quotient, of: [paid_share, revenue]}",
            "metrics/d.md:4: derived.op: expected one of ratio, difference, sum, product",
        ),
        (
            "{op: sum, of: [paid_share]}",
            "metrics/d.md:4: derived.of: expected exactly two metric names, [first, second]",
        ),
        (
            "{op: sum, of: [revenue, revenue]}",
            "metrics/d.md:4: derived.of[1]: name two different metrics",
        ),
        (
            "{op: ratio, of: [paid_share, revenue]}",
            "metrics/d.md:4: derived.zero_denominator: missing required key for a ratio; expected yields_null or fails",
        ),
        (
            "{op: sum, of: [paid_share, revenue], zero_denominator: fails}",
            "metrics/d.md:4: derived.zero_denominator: only a ratio has a zero_denominator",
        ),
        (
            "{op: sum, of: [paid_share, revenue], weight: 2}",
            "metrics/d.md:4: derived.weight: unknown key",
        ),
    ],
)
def test_a_derived_document_is_parsed_strictly(derived: str, expected: str) -> None:
    assert parse_error("metrics/d.md", _derived(derived)).sentence().startswith(expected)


def test_a_derived_metric_may_not_also_have_a_measure() -> None:
    text = _derived().replace("grains:", "model: orders\ngrains:")
    assert parse_error("metrics/d.md", text).sentence().startswith("metrics/d.md:5: model:")


def test_a_referent_that_does_not_exist_is_refused_at_its_key() -> None:
    documents = sample_documents(metrics__d=_derived("{op: difference, of: [revenue, refunds]}"))
    assert _sentences(documents) == ["metrics/d.md:4: derived.of[1]: no metric is called 'refunds'"]


def test_a_derived_metric_may_refer_to_a_derived_metric() -> None:
    catalog = _catalog(
        metrics__d=_derived(),
        metrics__e=_derived("{op: sum, of: [revenue, share_per_euro]}", name="e"),
    )
    nested = catalog.derived_metric("e")
    assert nested is not None and nested.of == ("revenue", "share_per_euro")


def test_a_cycle_of_derived_metrics_is_refused_naming_each_metric_and_file() -> None:
    documents = sample_documents(
        metrics__a=_derived("{op: sum, of: [revenue, b]}", name="a"),
        metrics__b=_derived("{op: difference, of: [c, paid_share]}", name="b"),
        metrics__c=_derived("{op: product, of: [a, revenue]}", name="c"),
    )
    assert _sentences(documents) == [
        "metrics/a.md:4: derived.of: the derived metrics 'a' ('metrics/a.md' line 4), 'b' ('metrics/b.md' line 4), 'c' ('metrics/c.md' line 4) refer to one another in a cycle ('a' → 'b' → 'c' → 'a'); a derived metric is computed from metrics that do not depend on it"
    ]


def test_derived_metrics_nest_at_most_eight_deep() -> None:
    chain = {
        f"metrics__n{i}": _derived(
            f"{{op: sum, of: [revenue, {'paid_share' if i == 0 else f'n{i - 1}'}]}}", name=f"n{i}"
        )
        for i in range(9)
    }
    assert _sentences(sample_documents(**chain)) == [
        "metrics/n8.md:4: derived.of: the derived metric nests 9 derived metrics deep; at most 8 may"
    ]
    del chain["metrics__n8"]
    assert _catalog(**chain).derived_metric("n7") is not None


def test_a_scale_is_an_exact_decimal_kept_as_written() -> None:
    scaled = "{op: ratio, of: [paid_share, revenue], zero_denominator: yields_null, scale: 100}"
    derived = _catalog(metrics__d=_derived(scaled)).derived_metric("share_per_euro")
    assert derived is not None and derived.scale == "100"
    kept = scaled.replace("scale: 100", "scale: 0100.0")
    derived = _catalog(metrics__d=_derived(kept)).derived_metric("share_per_euro")
    assert derived is not None and derived.scale == "100.0"


@pytest.mark.parametrize(
    ("scale", "problem"),
    [
        ("ten", "expected a number written as plain decimal text"),
        ("1e2", "expected a number written as plain decimal text"),
        ("'1,000'", "expected a number written as plain decimal text"),
        ("0.00", "a scale of zero would make every value zero"),
        ("[100]", "expected"),
    ],
)
def test_a_scale_that_is_not_a_number_is_refused_at_its_key(scale: str, problem: str) -> None:
    text = _derived(f"\n  op: sum\n  of: [paid_share, revenue]\n  scale: {scale}")
    sentence = parse_error("metrics/d.md", text).sentence()
    assert sentence.startswith(f"metrics/d.md:7: derived.scale: {problem}"), sentence


def test_the_digest_of_a_nested_derived_metric_covers_its_whole_tree() -> None:
    inner = _derived()
    outer = _derived("{op: sum, of: [revenue, share_per_euro]}", name="e")
    before = _digests(metrics__d=inner, metrics__e=outer)
    changed = _digests(
        metrics__d=_derived("{op: product, of: [paid_share, revenue]}"), metrics__e=outer
    )
    assert changed["e"] != before["e"]
    scaled = _digests(
        metrics__d=_derived(
            "{op: ratio, of: [paid_share, revenue], zero_denominator: yields_null, scale: 100}"
        ),
        metrics__e=outer,
    )
    assert scaled["share_per_euro"] != before["share_per_euro"] and scaled["e"] != before["e"]
    assert scaled["paid_share"] == before["paid_share"]
    measure = REVENUE.replace("aggregate: sum", "aggregate: max")
    moved = _digests(metrics__d=inner, metrics__e=outer, metrics__revenue=measure)
    assert moved["e"] != before["e"]


def test_a_grain_a_referent_does_not_list_is_refused() -> None:
    documents = sample_documents(metrics__d=_derived(grains="[month, day]"))
    assert _sentences(documents) == [
        "metrics/d.md:5: grains[1]: the metric 'paid_share' does not list the grain day; both referents must list every grain of a derived metric"
    ]


def test_a_dimension_a_referent_does_not_list_is_refused() -> None:
    documents = sample_documents(metrics__d=_derived(dimensions="[region]"))
    assert _sentences(documents) == [
        "metrics/d.md:6: dimensions[0]: the metric 'paid_share' does not list the dimension 'region'; both referents must list every dimension of a derived metric"
    ]


def test_a_name_shared_with_a_measured_metric_is_refused() -> None:
    gross = REVENUE.replace("name: revenue", "name: gross")
    documents = sample_documents(
        metrics__gross=gross,
        metrics__zz=_derived("{op: sum, of: [gross, paid_share]}", name="revenue"),
    )
    assert len(_sentences(documents)) == 1
    assert "another metric is already called 'revenue'" in _sentences(documents)[0]


def test_a_derived_metric_more_open_than_a_referent_is_refused() -> None:
    restricted = REVENUE.replace("audience: open", "audience: {restricted: [finance]}")
    documents = sample_documents(metrics__revenue=restricted, metrics__d=_derived())
    assert _sentences(documents) == [
        "metrics/d.md:7: audience: the derived metric would be seen by callers who may not see the metric 'revenue'; restrict it to audience ids its referents both admit"
    ]
    _catalog(
        metrics__revenue=restricted,
        metrics__d=_derived(audience="{restricted: [finance]}"),
    )


def _stock(source: str) -> dict[str, str]:
    stock = REVENUE.replace("name: revenue", "name: stock").replace("model: orders", "model: stock")
    model = f"---\nkind: model\nname: stock\nsource: {source}\ntable: stock\ncolumns: [ordered_on, amount, order_status, sales_channel]\n---\n"
    return {
        "models__stock": model,
        "metrics__stock": stock.split("dimensions:")[0] + "dimensions: []\naudience: open\n---\n",
        "metrics__d": _derived("{op: sum, of: [revenue, stock]}"),
    }


def test_referents_on_two_models_of_one_source_are_joined_not_refused() -> None:
    derived = _catalog(**_stock("main")).derived_metric("share_per_euro")
    assert derived is not None and derived.of == ("revenue", "stock")


def test_referents_on_two_sources_are_refused() -> None:
    assert _sentences(sample_documents(**_stock("warehouse"))) == [
        "metrics/d.md:4: derived.of: the metrics 'revenue' and 'stock' read the sources 'main' and 'warehouse'; one statement reads one source"
    ]


def _digests(**replaced: str) -> dict[str, str]:
    return pin(_catalog(**replaced), "v1", "UTC").metric_digests


def test_the_digest_of_a_derived_metric_covers_its_referents() -> None:
    before = _digests(metrics__d=_derived())
    assert set(before) == {"paid_share", "revenue", "share_per_euro"}
    changed = REVENUE.replace("aggregate: sum", "aggregate: max")
    assert "aggregate: max" in changed
    after = _digests(metrics__d=_derived(), metrics__revenue=changed)
    assert after["revenue"] != before["revenue"]
    assert after["share_per_euro"] != before["share_per_euro"]
    assert after["paid_share"] == before["paid_share"]
    reworded = _digests(metrics__d=_derived().replace("Paid share per euro.", "Other prose."))
    assert reworded == before
    op_changed = _digests(metrics__d=_derived("{op: product, of: [paid_share, revenue]}"))
    assert op_changed["share_per_euro"] != before["share_per_euro"]


def test_a_catalog_without_derived_metrics_keeps_its_digest() -> None:
    plain = pin(_catalog(), "v1", "UTC")
    with_derived = pin(_catalog(metrics__d=_derived()), "v1", "UTC")
    assert with_derived.digest != plain.digest
    assert {k: v for k, v in with_derived.metric_digests.items() if k != "share_per_euro"} == (
        plain.metric_digests
    )


def test_knowledge_may_be_about_a_derived_metric() -> None:
    glossary = "---\nkind: glossary\nterm: paid euros\nmeans:\n  metric: share_per_euro\n---\n"
    caveat = "---\nkind: caveat\nname: late\nabout:\n  - metric: share_per_euro\n---\nLate.\n"
    example = (
        "---\nkind: example\nname: monthly_share\nasked: [paid share per euro by month]\n"
        "question:\n  metrics: [share_per_euro]\n  grain: month\n"
        "  range: {start: 2024-01-01, end: 2024-07-01}\n---\n"
    )
    catalog = _catalog(
        metrics__d=_derived(),
        knowledge__g=glossary,
        knowledge__c=caveat,
        knowledge__e=example,
    )
    assert [c.name for c in catalog.knowledge.caveats_of("share_per_euro")] == ["late"]
    wrong = example.replace("grain: month", "grain: day")
    assert _sentences(sample_documents(metrics__d=_derived(), knowledge__e=wrong)) == [
        "knowledge/e.md:5: question: ask_metric would refuse this question (grain_not_supported): "
        + refusal(RefusalCode.GRAIN_NOT_SUPPORTED).detail
    ]


def test_a_derived_metric_over_a_restricted_derived_metric_is_restricted_too() -> None:
    restricted = REVENUE.replace("audience: open", "audience: {restricted: [finance]}")
    inner = _derived(audience="{restricted: [finance]}")
    outer = _derived("{op: sum, of: [paid_share, share_per_euro]}", name="e")
    documents = sample_documents(metrics__revenue=restricted, metrics__d=inner, metrics__e=outer)
    assert _sentences(documents) == [
        "metrics/e.md:7: audience: the derived metric would be seen by callers who may not see the metric 'share_per_euro'; restrict it to audience ids its referents both admit"
    ]


def test_a_caller_outside_a_tree_s_audience_is_told_the_metric_is_unknown() -> None:
    restricted = REVENUE.replace("audience: open", "audience: {restricted: [finance]}")
    catalog = _catalog(
        metrics__revenue=restricted,
        metrics__d=_derived(audience="{restricted: [finance]}"),
        metrics__e=_derived(
            "{op: sum, of: [paid_share, share_per_euro]}",
            name="e",
            audience="{restricted: [finance]}",
        ),
    )
    pinned = pin(catalog, "v1", "UTC")
    question = convert_question(
        {"metrics": ["e"], "grain": "month", "range": {"start": "2024-01-01", "end": "2024-03-01"}}
    ).unwrap()
    missing = msgspec.structs.replace(question, metrics=["no_such_metric"])
    day = datetime.date(2024, 6, 1)
    outside = seen_by(pinned, frozenset({"sales"}))
    asked = resolve_question(question, outside, LimitsSettings(), day)
    assert asked.failure() == resolve_question(missing, outside, LimitsSettings(), day).failure()
    assert asked.failure() == refusal(RefusalCode.METRIC_UNKNOWN)
    inside = seen_by(pinned, frozenset({"finance"}))
    resolved = resolve_question(question, inside, LimitsSettings(), day).unwrap()
    assert [m.name for m in resolved.metrics] == ["paid_share", "revenue"]
    assert [d.name for d in resolved.derived] == ["e", "share_per_euro"]
