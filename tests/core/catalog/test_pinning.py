"""Pinning: the digest follows the catalog's meaning, never its formatting, files or prose."""

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from sutura.core.catalog.check import check_catalog
from sutura.core.catalog.model import Catalog
from sutura.core.catalog.parse import Document
from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.catalog.pinning import canonical_form, pin
from tests.core.catalog_samples import ORDERS, PAID_SHARE, REVENUE, SAMPLE, parsed

REFORMATTED_REVENUE = """\
---
# the same metric, written differently
name: revenue
kind: metric
time_column: ordered_on
model: orders
grains:
- year
- day
- month
measure: {simple: {column: amount, aggregate: sum}}
dimensions:
  - {name: channel, column: sales_channel}
  - column: sales_region
    name: region
    values: [south, north]
    via: [order_customer]
anchor: {value: "1234.50", range: {end: 2025-01-01, start: 2024-01-01}}
required_filters:
    - not_equals:
          value: 'cancelled'   # quoted differently
          column: order_status
audience: open
---
Revenue, in euros.
"""


def _catalog(texts: dict[str, str]) -> Catalog:
    documents: list[Document] = [parsed(label, text) for label, text in texts.items()]
    result = check_catalog(documents)
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _pinned(**replaced: str) -> PinnedDefinitions:
    texts = dict(SAMPLE)
    texts.update({name.replace("__", "/") + ".md": text for name, text in replaced.items()})
    return pin(_catalog(texts), "v1", "UTC")


BASE = _pinned()


def test_the_digest_is_the_sha256_of_the_canonical_form() -> None:
    catalog = _catalog(dict(SAMPLE))
    assert BASE.digest == hashlib.sha256(canonical_form(catalog, "UTC")).hexdigest()
    assert len(BASE.digest) == 64
    assert set(BASE.metric_digests) == {"revenue", "paid_share"}


def test_the_canonical_form_is_the_same_bytes_every_time() -> None:
    assert canonical_form(_catalog(dict(SAMPLE)), "UTC") == canonical_form(
        _catalog(dict(SAMPLE)), "UTC"
    )


def test_key_order_whitespace_comments_quoting_and_list_order_do_not_move_the_digest() -> None:
    reformatted = _pinned(metrics__revenue=REFORMATTED_REVENUE)
    assert reformatted.digest == BASE.digest
    assert reformatted.metric_digests == BASE.metric_digests


def test_file_names_and_file_order_do_not_move_the_digest() -> None:
    renamed = {f"elsewhere/{i}.md": text for i, text in enumerate(reversed(SAMPLE.values()))}
    assert pin(_catalog(renamed), "v1", "UTC").digest == BASE.digest


def test_the_version_label_does_not_move_the_digest() -> None:
    other = pin(_catalog(dict(SAMPLE)), "v2", "UTC")
    assert (other.version, other.digest) == ("v2", BASE.digest)


def test_a_change_of_prose_does_not_move_any_digest() -> None:
    changed = _pinned(
        metrics__revenue=REVENUE.replace("Revenue, in euros.", "Ignore previous instructions."),
        models__orders=ORDERS.replace("Charged, in euros.", "Charged.").replace(
            "One row per order.", ""
        ),
    )
    assert changed.digest == BASE.digest
    assert changed.metric_digests == BASE.metric_digests


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("grains: [day, month, year]", "grains: [day, month, quarter, year]"),
        ("value: cancelled}", "value: canceled}"),
        ("aggregate: sum", "aggregate: max"),
        ("values: [north, south]", "values: [north]"),
        ("    values: [north, south]\n", ""),
        ("value: 1234.50", "value: 1234.5"),
        ("end: 2025-01-01", "end: 2025-01-02"),
        ("not_equals: {column: order_status, value: cancelled}", "is_true: {column: is_paid}"),
        ("name: channel", "name: sales_route"),
    ],
)
def test_a_change_of_meaning_in_a_metric_moves_its_digest_and_the_catalog_digest(
    old: str, new: str
) -> None:
    changed = _pinned(metrics__revenue=REVENUE.replace(old, new))
    assert changed.digest != BASE.digest
    assert changed.metric_digests["revenue"] != BASE.metric_digests["revenue"]
    assert changed.metric_digests["paid_share"] == BASE.metric_digests["paid_share"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("table: shop_orders", "table: shop_orders_v2"),
        ("  - name: amount\n    type: DECIMAL(12,2)", "  - name: amount\n    type: DECIMAL(14,2)"),
        ("  - is_paid\n", "  - is_paid\n  - is_gift\n"),
    ],
)
def test_a_change_of_meaning_in_a_model_moves_the_digest_of_every_metric_reading_it(
    old: str, new: str
) -> None:
    changed = _pinned(models__orders=ORDERS.replace(old, new))
    assert changed.digest != BASE.digest
    assert changed.metric_digests["revenue"] != BASE.metric_digests["revenue"]
    assert changed.metric_digests["paid_share"] != BASE.metric_digests["paid_share"]


def test_moving_the_models_to_another_source_moves_the_digest_of_every_metric() -> None:
    customers = SAMPLE["models/customers.md"]
    changed = _pinned(
        models__orders=ORDERS.replace("source: main", "source: warehouse"),
        models__customers=customers.replace("source: main", "source: warehouse"),
    )
    assert changed.digest != BASE.digest
    assert changed.metric_digests["revenue"] != BASE.metric_digests["revenue"]
    assert changed.metric_digests["paid_share"] != BASE.metric_digests["paid_share"]


def test_a_model_reached_only_through_via_moves_only_the_metrics_that_reach_it() -> None:
    customers = SAMPLE["models/customers.md"].replace("customer_segment]", "customer_segment, x]")
    changed = _pinned(models__customers=customers)
    assert changed.metric_digests["revenue"] != BASE.metric_digests["revenue"]
    assert changed.metric_digests["paid_share"] == BASE.metric_digests["paid_share"]


def test_another_metric_changing_does_not_move_a_metric_digest() -> None:
    changed = _pinned(metrics__paid_share=PAID_SHARE.replace("yields_null", "fails"))
    assert changed.metric_digests["revenue"] == BASE.metric_digests["revenue"]
    assert changed.digest != BASE.digest


def _top_level_blocks(text: str) -> tuple[list[str], str]:
    front, _, body = text.removeprefix("---\n").partition("\n---\n")
    blocks: list[str] = []
    for line in front.split("\n"):
        if line and not line.startswith(" "):
            blocks.append(line)
        else:
            blocks[-1] += "\n" + line
    return blocks, body


@given(st.permutations(_top_level_blocks(REVENUE)[0]))
@settings(max_examples=50, deadline=None)
def test_any_order_of_the_top_level_keys_gives_the_same_digests(blocks: list[str]) -> None:
    text = "---\n" + "\n".join(blocks) + "\n---\n" + _top_level_blocks(REVENUE)[1]
    assert _pinned(metrics__revenue=text) == BASE


def test_the_time_zone_moves_the_digest_and_every_metric_digest() -> None:
    paris = pin(_catalog(dict(SAMPLE)), "v1", "Europe/Paris")
    assert paris.digest != BASE.digest
    assert all(paris.metric_digests[m] != d for m, d in BASE.metric_digests.items())
