"""Shared dimensions: declared once on a model, used by every metric that reaches it, narrowed
by a list, re-rooted along the path, pinned as the metric's own, and refused when one name is
declared twice."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.model import Catalog, Metric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.expression.nodes import Column, DatePart, Part
from tests.core.catalog_samples import ORDER_CUSTOMER, REVENUE, parse_error, parsed

ORDERS = """\
---
kind: model
name: orders
source: main
table: shop_orders
primary_key: order_id
columns:
  - order_id
  - customer_id
  - name: ordered_on
    type: DATE
  - name: amount
    type: DECIMAL(12,2)
  - order_status
  - sales_channel
dimensions:
  - name: channel
    column: sales_channel
    description: Where the order was taken.
---
One row per order.
"""

CUSTOMERS = """\
---
kind: model
name: customers
source: main
table: shop_customers
primary_key: customer_id
columns:
  - customer_id
  - sales_region
  - customer_segment
  - name: signed_up_on
    type: DATE
dimensions:
  - name: region
    column: sales_region
    values: [north, south]
    description: Where the buyer is based.
  - name: signup_year
    expression: {year: {column: signed_up_on}}
    type: integer
---
One row per buyer.
"""

SHARED_REVENUE = """\
---
kind: metric
name: revenue
model: orders
measure:
  simple: {aggregate: sum, column: amount}
time_column: ordered_on
grains: [day, month, year]
required_filters:
  - not_equals: {column: order_status, value: cancelled}
anchor:
  range: {start: 2024-01-01, end: 2025-01-01}
  value: 1234.50
audience: open
---
Revenue, in euros.
"""

ORDER_COUNT = """\
---
kind: metric
name: order_count
model: orders
measure:
  simple: {aggregate: count, column: order_id}
time_column: ordered_on
grains: [month]
dimensions: [region]
audience: open
---
"""

CUSTOMER_COUNT = """\
---
kind: metric
name: signups
model: customers
measure:
  simple: {aggregate: count, column: customer_id}
time_column: signed_up_on
grains: [month]
audience: open
---
"""


def _documents(**texts: str) -> dict[str, str]:
    base = {
        "models/orders.md": ORDERS,
        "models/customers.md": CUSTOMERS,
        "relationships/order_customer.md": ORDER_CUSTOMER,
        "metrics/revenue.md": SHARED_REVENUE,
    }
    return base | {name.replace("__", "/") + ".md": text for name, text in texts.items()}


def _catalog(texts: dict[str, str]) -> Catalog:
    result = check_catalog([parsed(label, text) for label, text in sorted(texts.items())])
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _sentences(texts: dict[str, str]) -> list[str]:
    result = check_catalog([parsed(label, text) for label, text in sorted(texts.items())])
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def _metric(catalog: Catalog, name: str) -> Metric:
    metric = catalog.metric(name)
    assert metric is not None
    return metric


def test_a_metric_without_dimensions_uses_every_shared_dimension_it_reaches() -> None:
    revenue = _metric(_catalog(_documents()), "revenue")
    assert [(d.name, d.shared_from) for d in revenue.dimensions] == [
        ("channel", "orders"),
        ("region", "customers"),
        ("signup_year", "customers"),
    ]
    region = revenue.dimension("region")
    assert region is not None
    assert (region.column, region.via, region.values) == (
        "sales_region",
        ("order_customer",),
        ("north", "south"),
    )
    assert region.description == "Where the buyer is based."


def test_an_expression_of_another_model_is_re_rooted_along_the_path() -> None:
    revenue = _metric(_catalog(_documents()), "revenue")
    year = revenue.dimension("signup_year")
    assert year is not None
    assert year.expression == DatePart(
        part=Part.YEAR, of=Column(name="signed_up_on", via=("order_customer",))
    )
    signups = _metric(_catalog(_documents(metrics__signups=CUSTOMER_COUNT)), "signups")
    own = signups.dimension("signup_year")
    assert own is not None
    assert own.expression == DatePart(part=Part.YEAR, of=Column(name="signed_up_on"))
    # customers reaches no orders: the channel is not its dimension
    assert [d.name for d in signups.dimensions] == ["region", "signup_year"]


def test_a_list_narrows_and_mixes_names_with_dimensions_of_the_metric() -> None:
    mixed = ORDER_COUNT.replace(
        "dimensions: [region]",
        "dimensions:\n  - customers.region\n  - {name: status, column: order_status}\n  - channel",
    )
    catalog = _catalog(_documents(metrics__order_count=mixed))
    order_count = _metric(catalog, "order_count")
    assert [(d.name, d.shared_from) for d in order_count.dimensions] == [
        ("region", "customers"),
        ("status", None),
        ("channel", "orders"),
    ]
    narrowed = _metric(_catalog(_documents(metrics__order_count=ORDER_COUNT)), "order_count")
    assert [d.name for d in narrowed.dimensions] == ["region"]
    empty = ORDER_COUNT.replace("dimensions: [region]", "dimensions: []")
    assert _metric(_catalog(_documents(metrics__order_count=empty)), "order_count").dimensions == ()


def _pinned(texts: dict[str, str]) -> PinnedDefinitions:
    return pin(_catalog(texts), "v1", "UTC")


def test_declaring_a_dimension_once_or_on_each_metric_is_one_meaning_and_one_digest() -> None:
    per_metric = {
        "models/orders.md": ORDERS.split("dimensions:")[0] + "---\n",
        "models/customers.md": CUSTOMERS.split("dimensions:")[0] + "---\n",
        "relationships/order_customer.md": ORDER_CUSTOMER,
        "metrics/revenue.md": REVENUE,
    }
    shared = _documents(
        metrics__revenue=SHARED_REVENUE.replace(
            "audience: open", "dimensions: [region, channel]\naudience: open"
        )
    )
    one, other = _pinned(per_metric), _pinned(shared)
    assert one.metric_digests == other.metric_digests
    assert one.digest == other.digest


def test_changing_a_shared_dimension_moves_every_metric_using_it_and_rewording_moves_none() -> None:
    texts = _documents(metrics__order_count=ORDER_COUNT)
    before = _pinned(texts)
    fewer = CUSTOMERS.replace("values: [north, south]", "values: [north]")
    after = _pinned(texts | {"models/customers.md": fewer})
    assert after.metric_digests["revenue"] != before.metric_digests["revenue"]
    assert after.metric_digests["order_count"] != before.metric_digests["order_count"]
    assert after.digest != before.digest
    reworded = CUSTOMERS.replace("Where the buyer is based.", "The buyer's region.")
    again = _pinned(texts | {"models/customers.md": reworded})
    assert (again.digest, again.metric_digests) == (before.digest, before.metric_digests)
    channel = ORDERS.replace(
        "column: sales_channel\n    description", "column: order_status\n    description"
    )
    moved = _pinned(texts | {"models/orders.md": channel})
    assert moved.metric_digests["revenue"] != before.metric_digests["revenue"]
    assert moved.metric_digests["order_count"] == before.metric_digests["order_count"]


STORES = """\
---
kind: model
name: stores
source: main
table: shop_stores
primary_key: store_id
columns: [store_id, store_region]
dimensions:
  - name: region
    column: store_region
---
"""

ORDER_STORE = """\
---
kind: relationship
name: order_store
origin_model: orders
target_model: stores
keys:
  - equal: {origin: sales_channel, target: store_id}
join_type: many_to_one
---
"""

CUSTOMER_STORE = (
    ORDER_STORE.replace("order_store", "customer_store")
    .replace("origin_model: orders", "origin_model: customers")
    .replace("origin: sales_channel", "origin: sales_region")
)


@pytest.mark.parametrize(
    ("texts", "sentences"),
    [
        (
            {"metrics__revenue": REVENUE},
            [
                "metrics/revenue.md:14: dimensions[0].name: the model 'customers' declares the dimension 'region' for every metric that reaches it (in 'models/customers.md' line 14, dimensions[0].name); a name is declared once: list it by name, or give this one another name",
                "metrics/revenue.md:18: dimensions[1].name: the model 'orders' declares the dimension 'channel' for every metric that reaches it (in 'models/orders.md' line 17, dimensions[0].name); a name is declared once: list it by name, or give this one another name",
            ],
        ),
        (
            {"models__stores": STORES, "relationships__order_store": ORDER_STORE},
            [
                "metrics/revenue.md:1: dimensions: the dimension 'region' is declared by two models this metric reaches: 'customers' (in 'models/customers.md' line 14, dimensions[0].name) and 'stores' (in 'models/stores.md' line 9, dimensions[0].name); list the one this metric uses as customers.region or stores.region",
            ],
        ),
        (
            {"metrics__order_count": ORDER_COUNT.replace("[region]", "[nowhere]")},
            [
                "metrics/order_count.md:9: dimensions[0]: no dimension 'nowhere' is declared by the model 'orders' or by a model it reaches along relationships; declare it on a model, or write it here in full ({name, column} or {name, expression, type})",
            ],
        ),
        (
            {"metrics__order_count": ORDER_COUNT.replace("[region]", "[region, region]")},
            ["metrics/order_count.md:9: dimensions[1]: the dimension 'region' is listed twice"],
        ),
        (
            {
                "metrics__signups": CUSTOMER_COUNT.replace(
                    "audience", "dimensions: [orders.channel]\naudience"
                )
            },
            [
                "metrics/signups.md:9: dimensions[0]: the model 'orders' is not the metric's model 'customers' nor reached from it along relationships",
            ],
        ),
        (
            {
                "metrics__order_count": ORDER_COUNT.replace("[region]", "[customers.channel]"),
            },
            [
                "metrics/order_count.md:9: dimensions[0]: the model 'customers' declares no dimension 'channel'"
            ],
        ),
        (
            {
                "models__stores": STORES,
                "relationships__order_store": ORDER_STORE,
                "relationships__customer_store": CUSTOMER_STORE,
                "metrics__revenue": SHARED_REVENUE.replace("audience", "dimensions: []\naudience"),
                "metrics__order_count": ORDER_COUNT.replace("[region]", "[stores.region]"),
            },
            [
                "metrics/order_count.md:9: dimensions[0]: the model 'stores', which declares the dimension 'region' (in 'models/stores.md' line 9, dimensions[0].name), is reached along two paths ('order_store'; and 'order_customer', 'customer_store'), so which of its rows the dimension reads is not one; declare the dimension on this metric with the via chain it means",
            ],
        ),
        (
            {"models__customers": CUSTOMERS.replace("column: sales_region", "column: region_code")},
            [
                "models/customers.md:15: dimensions[0].column: the model 'customers' has no column 'region_code'"
            ],
        ),
        (
            {"models__orders": ORDERS.replace("name: channel", "name: revenue")},
            [
                "models/orders.md:17: dimensions[0].name: a dimension may not share its name with a metric"
            ],
        ),
        (
            {"models__customers": CUSTOMERS.replace("type: integer", "type: text")},
            [
                "models/customers.md:20: dimensions[1].type: declared text, but the expression computes integer"
            ],
        ),
    ],
)
def test_a_name_declared_twice_or_not_reached_is_refused_naming_both_places(
    texts: dict[str, str], sentences: list[str]
) -> None:
    assert _sentences(_documents(**texts)) == sentences


def test_a_narrowed_metric_may_reach_two_models_declaring_one_name() -> None:
    texts = _documents(
        models__stores=STORES,
        relationships__order_store=ORDER_STORE,
        metrics__revenue=SHARED_REVENUE.replace(
            "audience", "dimensions: [stores.region, channel]\naudience"
        ),
    )
    region = _metric(_catalog(texts), "revenue").dimension("region")
    assert region is not None
    assert (region.shared_from, region.via, region.column) == (
        "stores",
        ("order_store",),
        "store_region",
    )


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            ORDERS.replace("name: channel", "name: period"),
            "models/orders.md:17: dimensions[0].name: a dimension may not be called period (the answer's period column)",
        ),
        (
            CUSTOMERS.replace(
                "  - name: signup_year",
                "  - name: region\n    column: customer_segment\n  - name: signup_year",
            ),
            "models/customers.md:18: dimensions[1].name: the dimension 'region' is listed twice",
        ),
        (
            ORDERS.replace("dimensions:\n", "dimensions:\n  - region\n"),
            "models/orders.md:17: dimensions[0]: expected a mapping, got text",
        ),
    ],
)
def test_a_model_s_dimensions_are_checked_as_a_metric_s(text: str, sentence: str) -> None:
    label = "models/customers.md" if "customers" in text.split("\n")[2] else "models/orders.md"
    assert parse_error(label, text).sentence() == sentence


@pytest.mark.parametrize(
    ("written", "sentence"),
    [
        (
            "[a.b.c]",
            "metrics/order_count.md:9: dimensions[0]: 'a.b.c': name a shared dimension as name or model.name",
        ),
        (
            "[customers.9x]",
            "metrics/order_count.md:9: dimensions[0]: '9x' is not a valid name: a letter or _, then up to 63 letters, digits or _",
        ),
    ],
)
def test_a_name_in_a_metric_s_list_is_a_name_or_model_dot_name(written: str, sentence: str) -> None:
    text = ORDER_COUNT.replace("[region]", written)
    assert parse_error("metrics/order_count.md", text).sentence() == sentence
