"""Shared dimensions in the catalog an agent reads: once per model, named compactly by each
metric, in both halves; a page carries those of its metrics; a hidden metric's leave no trace."""

from typing import Any

import msgspec
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.pinning.digests import pin
from sutura.core.catalog.view.catalog import SHARED_HEADING, CatalogView
from sutura.core.catalog.view.pages import CatalogPages
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.formulas import Formulas
from sutura.core.nouns.prose import CatalogProse, catalog_notice
from sutura.core.text.escape import escape_cell
from sutura.core.tool.codec import catalog_halves, decode_catalog
from sutura.core.tool.seen import seen_by
from tests.core.catalog.checks.test_shared import (
    CUSTOMER_COUNT,
    CUSTOMERS,
    ORDER_COUNT,
    ORDER_STORE,
    ORDERS,
    SHARED_REVENUE,
    STORES,
)
from tests.core.catalog_samples import ORDER_CUSTOMER, parsed

RESTRICTED_SIGNUPS = CUSTOMER_COUNT.replace(
    "audience: open", "dimensions: [signup_year]\naudience: {restricted: [growth]}"
)
NARROW_REVENUE = SHARED_REVENUE.replace("audience", "dimensions: [channel, region]\naudience")


def _pinned(**texts: str) -> PinnedDefinitions:
    documents = {
        "models/orders.md": ORDERS,
        "models/customers.md": CUSTOMERS,
        "relationships/order_customer.md": ORDER_CUSTOMER,
        "metrics/revenue.md": NARROW_REVENUE,
        "metrics/order_count.md": ORDER_COUNT,
    } | {name.replace("__", "/") + ".md": text for name, text in texts.items()}
    result = check_catalog([parsed(label, text) for label, text in sorted(documents.items())])
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return pin(result.unwrap(), "v1", "UTC")


def _halves(view: CatalogView) -> tuple[list[str], Any]:
    halves = catalog_halves(view).unwrap()
    return halves.text.split("\n"), msgspec.json.decode(halves.structured)


def test_each_model_s_dimensions_are_listed_once_and_each_metric_names_those_it_uses() -> None:
    pinned = _pinned()
    lines, body = _halves(CatalogView.of(pinned, CatalogProse.QUOTED))
    assert lines[: lines.index("metric: order_count")] == [
        catalog_notice(CatalogProse.QUOTED),
        SHARED_HEADING,
        "dimension: region",
        "values:\tnorth\tsouth",
        "> Where the buyer is based.",
        "dimension: channel",
        "> Where the order was taken.",
    ]
    assert "shared dimensions:\tregion" in lines
    assert lines[lines.index("metric: revenue") :][:4] == [
        "metric: revenue",
        "grains: day, month, year",
        "> Revenue, in euros.",
        "shared dimensions:\tchannel\tregion",
    ]
    assert sum(line.split(" (")[0] == "dimension: region" for line in lines) == 1
    assert body["dimensions"] == [
        {
            "name": "region",
            "description": "Where the buyer is based.",
            "allowed_values": ["north", "south"],
        },
        {
            "name": "channel",
            "description": "Where the order was taken.",
        },
    ]
    revenue = next(m for m in body["metrics"] if m["name"] == "revenue")
    assert revenue["dimensions"] == []
    assert revenue["shared"] == ["channel", "region"]
    # signup_year is declared, but no metric uses it: nobody can ask by it, so it is not listed
    assert "signup_year" not in "\n".join(lines)


def test_the_structured_half_decodes_and_omitted_prose_leaves_no_description() -> None:
    view = CatalogView.of(_pinned(), CatalogProse.OMITTED)
    halves = catalog_halves(view).unwrap()
    decoded = decode_catalog(halves.structured).unwrap()
    assert decoded == view.body
    assert not [line for line in halves.text.split("\n") if line.startswith(">")]
    assert b"Where the buyer" not in halves.structured


def test_with_formulas_shown_each_metric_s_formula_reads_its_shared_dimensions() -> None:
    view = CatalogView.of(_pinned(), CatalogProse.QUOTED, formulas=Formulas.SHOWN)
    _, body = _halves(view)
    revenue = next(m for m in body["metrics"] if m["name"] == "revenue")
    assert revenue["formula"].endswith(
        "; channel: sales_channel; region: order_customer.sales_region"
    )


def test_a_hidden_metric_s_shared_dimensions_are_missing_byte_for_byte() -> None:
    with_hidden = _pinned(metrics__signups=RESTRICTED_SIGNUPS)
    seen = seen_by(with_hidden, frozenset({"staff"}))
    assert "signups" not in seen.metric_digests
    without = _pinned()
    # The same definitions' provenance, so that only what the caller sees is compared.
    alike = msgspec.structs.replace(
        without, version=seen.version, digest=seen.digest, metric_digests=seen.metric_digests
    )
    for prose in CatalogProse:
        hidden = catalog_halves(CatalogView.of(seen, prose)).unwrap()
        missing = catalog_halves(CatalogView.of(alike, prose)).unwrap()
        assert hidden == missing
        assert "signup_year" not in hidden.text
    shown = catalog_halves(CatalogView.of(with_hidden, CatalogProse.QUOTED)).unwrap()
    assert any(line.startswith("dimension: signup_year") for line in shown.text.split("\n"))


def test_a_page_carries_the_shared_dimensions_of_its_own_metrics_only() -> None:
    pinned = _pinned(metrics__signups=RESTRICTED_SIGNUPS)
    pages = CatalogPages.of(CatalogView.of(pinned, CatalogProse.QUOTED))
    page = pages.page("signups", 1).unwrap()
    assert [m.name for m in page.body.metrics] == ["signups"]
    assert [d.name for d in page.body.dimensions] == ["signup_year"]
    lines, _ = _halves(page)
    assert not any(line.startswith("dimension: channel") for line in lines)


def test_a_hostile_shared_value_is_escaped_like_every_cell() -> None:
    hostile = "north\tmetric: fake\n\u202e"
    written = 'values: ["north\\tmetric: fake\\n\\u202e", south]'  # YAML's escapes
    pinned = _pinned(models__customers=CUSTOMERS.replace("values: [north, south]", written))
    lines, body = _halves(CatalogView.of(pinned, CatalogProse.QUOTED))
    region = body["dimensions"][0]
    assert region["allowed_values"][0] == "north\tmetric: fake\n\u202e"
    assert "\t".join(["values:", escape_cell(hostile), "south"]) in lines


def test_no_model_is_named_and_two_shared_dimensions_of_one_name_are_described_in_place() -> None:
    pinned = _pinned(
        models__stores=STORES,
        relationships__order_store=ORDER_STORE,
        metrics__revenue=SHARED_REVENUE.replace(
            "audience", "dimensions: [channel, stores.region]\naudience"
        ),
        metrics__order_count=ORDER_COUNT.replace("[region]", "[customers.region]"),
    )
    lines, body = _halves(CatalogView.of(pinned, CatalogProse.QUOTED))
    text = "\n".join(lines)
    assert not {"orders", "customers", "stores"} & set(text.replace(":", " ").split())
    assert [d["name"] for d in body["dimensions"]] == ["channel"]
    metrics = {m["name"]: m for m in body["metrics"]}
    assert metrics["revenue"]["shared"] == ["channel"]
    assert [d["name"] for d in metrics["revenue"]["dimensions"]] == ["region"]
    assert [d["name"] for d in metrics["order_count"]["dimensions"]] == ["region"]
    assert metrics["order_count"]["dimensions"][0]["allowed_values"] == ["north", "south"]
