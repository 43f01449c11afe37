"""The catalog in pages: searched, ranked, bounded to 16 KB of text, both halves from one value,
and the untrusted-content properties on every page of every search (the whole prose corpus)."""

import msgspec
import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.catalog.view.pages import PAGE_BYTES, CatalogPages
from sutura.core.definitions.knowledge import GlossaryTerm, Knowledge, MeansMetric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.prose import CatalogProse, catalog_notice
from sutura.core.prompt import render_prompt
from sutura.core.settings import LimitsSettings
from sutura.core.text.escape import escape_text, has_lone_surrogate, is_escaped
from sutura.core.text.untrusted import PROSE
from sutura.core.tool.codec import catalog_halves, decode_catalog
from tests.core.untrusted_samples import METRIC_DIGEST, pinned

TOPICS = ("freight", "payroll", "energy", "travel")


def _large(count: int, describe: list[str] | None = None) -> PinnedDefinitions:
    """``count`` metrics like the sample's, named ``<topic>_ledger_<n>``, with a glossary term
    for every tenth; ``describe`` gives descriptions in turn (else a sentence per topic)."""
    base = pinned()
    sample = base.catalog.metrics[0]
    metrics = []
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        description = (
            describe[n % len(describe)] if describe else f"The {topic} spend of ledger {n}."
        )
        metrics.append(
            msgspec.structs.replace(sample, name=f"{topic}_ledger_{n:04d}", description=description)
        )
    glossary = tuple(
        GlossaryTerm(
            term=f"book {n}", synonyms=(f"tome{n}",), means=MeansMetric(metric=metrics[n].name)
        )
        for n in range(0, count, 10)
    )
    catalog = msgspec.structs.replace(
        base.catalog, metrics=tuple(metrics), knowledge=Knowledge(glossary=glossary)
    )
    digests = {metric.name: METRIC_DIGEST for metric in metrics}
    return msgspec.structs.replace(base, catalog=catalog, metric_digests=digests)


LARGE = CatalogPages.of(CatalogView.of(_large(600), CatalogProse.QUOTED))


def _text(view: CatalogView) -> str:
    return catalog_halves(view).unwrap().text


def _pages(pages: CatalogPages, search: str | None) -> list[CatalogView]:
    first = pages.page(search, 1).unwrap()
    count = first.body.page.pages  # type: ignore[union-attr]
    return [first, *(pages.page(search, n).unwrap() for n in range(2, count + 1))]


def test_a_small_catalog_is_whole_and_a_large_one_is_not() -> None:
    assert CatalogPages.of(CatalogView.of(pinned(), CatalogProse.QUOTED)).whole
    assert not LARGE.whole
    assert len(_text(LARGE.view).encode("utf-8")) > 4 * PAGE_BYTES


@pytest.mark.parametrize("count", [1, 40, 80, 81, 82, 83, 600])
def test_a_catalog_is_whole_exactly_when_its_whole_text_fits_a_page(count: int) -> None:
    """``whole`` adds the metrics' sizes to the rest of the text (each metric rendered once);
    it must say what the whole text half, rendered, says (sizes around 16 KB included)."""
    view = CatalogView.of(_large(count), CatalogProse.QUOTED)
    fits = len(_text(view).encode("utf-8")) <= PAGE_BYTES
    assert CatalogPages.of(view).whole is fits


def test_the_pages_hold_every_metric_once_in_order_each_within_16_kb() -> None:
    views = _pages(LARGE, None)
    shown = [metric.name for view in views for metric in view.body.metrics]
    assert shown == [metric.name for metric in LARGE.view.body.metrics]
    for number, view in enumerate(views, start=1):
        text = _text(view)
        assert len(text.encode("utf-8")) <= PAGE_BYTES
        lines = text.split("\n")
        assert lines[0] == catalog_notice(CatalogProse.QUOTED)
        then = (
            f"next: describe_catalog with page {number + 1} and the same search"
            if number < len(views)
            else "this is the last page"
        )
        assert lines[1] == f"page: {number} of {len(views)} (600 of 600 metrics match; {then})"
    # pages are full: the next page's first metric would not have fitted
    first, second = views[0], views[1]
    one_more = LARGE.view.showing(
        [m.name for m in first.body.metrics] + [second.body.metrics[0].name],
        first.body.page,  # type: ignore[arg-type]
    )
    assert len(_text(one_more).encode("utf-8")) > PAGE_BYTES


def test_both_halves_of_a_page_come_from_one_value() -> None:
    view = LARGE.page("payroll", 2).unwrap()
    halves = catalog_halves(view).unwrap()
    body = decode_catalog(halves.structured).unwrap()
    names = [metric.name for metric in body.metrics]
    assert names == [
        line[len("metric: ") :] for line in halves.text.split("\n") if line.startswith("metric: ")
    ]
    assert body.page == view.body.page
    assert [d.metric for d in body.provenance.metric_digests] == sorted(names)
    assert {term.means.metric for term in body.glossary} <= set(names)


def test_a_search_ranks_the_exact_name_then_glossary_then_name_words_then_prose() -> None:
    assert LARGE.matching("travel_ledger_0003")[0] == "travel_ledger_0003"
    assert LARGE.matching("tome20") == ["freight_ledger_0020"]
    assert LARGE.matching("book 30")[0] == "energy_ledger_0030"
    payroll = LARGE.matching("payroll")
    assert len(payroll) == 150 and all(name.startswith("payroll_") for name in payroll)
    # a word of the description only (the ledger number) finds the metric by its prose
    assert LARGE.matching("spend 417") == [
        "payroll_ledger_0417",
        *[m for m in LARGE.matching("spend") if m != "payroll_ledger_0417"],
    ]
    assert LARGE.matching("PAYROLL") == payroll  # case-insensitive


def test_a_search_finding_nothing_is_one_empty_page_saying_so() -> None:
    view = LARGE.page("churn", 1).unwrap()
    assert view.body.metrics == [] and view.body.glossary == []
    assert _text(view).split("\n")[1] == (
        "page: 1 of 1 (0 of 600 metrics match; this is the last page)"
    )


def test_a_page_past_the_last_is_refused_naming_the_last() -> None:
    count = len(_pages(LARGE, "payroll"))
    assert count > 1
    assert LARGE.page("payroll", count + 1).failure() == (
        f"page {count + 1} is past the last page ({count}); pages start at 1"
    )


def test_omitted_prose_is_not_searched() -> None:
    omitted = CatalogPages.of(CatalogView.of(_large(50), CatalogProse.OMITTED))
    assert omitted.matching("spend") == []
    assert omitted.matching("freight") != []


CARRIED = [case.value for case in PROSE if not has_lone_surrogate(case.value)]


@pytest.mark.parametrize("search", ["ledger", "payroll", "energy 7", None])
def test_every_page_of_a_hostile_catalog_quotes_its_prose_after_one_notice(
    search: str | None,
) -> None:
    # every metric's description is one case of the prose corpus, in turn
    hostile = _large(3 * len(CARRIED), describe=CARRIED)
    pages = CatalogPages.of(CatalogView.of(hostile, CatalogProse.QUOTED))
    by_name = {metric.name: metric.description for metric in hostile.catalog.metrics}
    views = _pages(pages, search)
    assert sum(len(view.body.metrics) for view in views) == len(pages.matching(search))
    for view in views:
        result = catalog_halves(view)
        assert is_successful(result)
        text = result.unwrap().text
        lines = text.split("\n")
        notice = catalog_notice(CatalogProse.QUOTED)
        assert lines[0] == notice and lines.count(notice) == 1
        expected: list[str] = []
        for metric in view.body.metrics:
            prose = by_name[metric.name]
            expected += [f"> {escape_text(line)}" for line in prose.split("\n")] if prose else []
            expected.append("> Where the customer is billed.")
        assert [line for line in lines if line.startswith("> ")] == expected
        assert text.splitlines() == lines
        assert not [ch for ch in text if is_escaped(ch) and ch not in "\t\n\\"]
        body = decode_catalog(result.unwrap().structured).unwrap()
        assert [m.description.text for m in body.metrics] == [  # type: ignore[union-attr]
            by_name[m.name] for m in view.body.metrics
        ]


def test_the_prompt_of_a_large_catalog_carries_a_compact_index_of_every_name() -> None:
    prompt = render_prompt(
        _large(600),
        prose=CatalogProse.QUOTED,
        limits=LimitsSettings(),
        run_sql_enabled=False,
        operator_instructions=None,
    )
    lines = prompt.split("\n")
    listed = [n for line in lines if line.startswith("metrics:\t") for n in line.split("\t")[1:]]
    assert listed == [metric.name for metric in LARGE.view.body.metrics]
    assert not [line for line in lines if line.startswith(("metric: ", "term: ", "> "))]
    assert "Call `describe_catalog` with `search`" in prompt
    assert len(prompt.encode("utf-8")) < 3 * PAGE_BYTES
    small = render_prompt(
        pinned(),
        prose=CatalogProse.QUOTED,
        limits=LimitsSettings(),
        run_sql_enabled=False,
        operator_instructions=None,
    )
    assert "metric: revenue" in small.split("\n") and "metrics:\t" not in small
