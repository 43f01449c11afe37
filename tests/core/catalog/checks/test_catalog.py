"""The whole catalog: cross-document checks, every problem collected, names sorted."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

import pytest
from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import Document
from sutura.core.definitions.model import Catalog
from tests.core.catalog_samples import (
    CUSTOMERS,
    ORDER_CUSTOMER,
    ORDERS,
    PAID_SHARE,
    REVENUE,
    sample_documents,
)


def _catalog(documents: list[Document]) -> Catalog:
    result = check_catalog(documents)
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def _sentences(documents: list[Document]) -> list[str]:
    result = check_catalog(documents)
    assert not is_successful(result), "expected the catalog to be refused"
    return [error.sentence() for error in result.failure()]


def test_the_sample_catalog_is_checked_and_sorted_by_name() -> None:
    catalog = _catalog(sample_documents())
    assert [m.name for m in catalog.models] == ["customers", "orders"]
    assert [m.name for m in catalog.metrics] == ["paid_share", "revenue"]
    assert [r.name for r in catalog.relationships] == ["order_customer"]


def test_an_empty_catalog_is_refused() -> None:
    assert _sentences([]) == [".: the catalog has no documents"]


def test_duplicate_names_name_both_files() -> None:
    documents = sample_documents(metrics__copy=REVENUE)
    assert _sentences(documents) == [
        "metrics/revenue.md:3: name: another metric is already called 'revenue', "
        "in 'metrics/copy.md' line 3"
    ]


def test_the_same_name_in_two_kinds_is_allowed() -> None:
    text = CUSTOMERS.replace("name: customers", "name: revenue")
    _catalog(sample_documents(models__revenue=text))


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "model: orders",
            "model: sales",
            "metrics/revenue.md:4: model: no model is called 'sales'",
        ),
        (
            "time_column: ordered_on",
            "time_column: placed_at",
            "metrics/revenue.md:9: time_column: the model 'orders' has no column 'placed_at'",
        ),
        (
            "column: amount",
            "column: total",
            "metrics/revenue.md:8: measure.simple.column: the model 'orders' has no column 'total'",
        ),
        (
            "{column: order_status,",
            "{column: status,",
            "metrics/revenue.md:12: required_filters[0].not_equals.column: the model 'orders' has no column 'status'",
        ),
        (
            "column: sales_channel",
            "column: channel",
            "metrics/revenue.md:19: dimensions[1].column: the model 'orders' has no column 'channel'",
        ),
        (
            "column: sales_region",
            "column: region",
            "metrics/revenue.md:15: dimensions[0].column: the model 'customers' has no column 'region'",
        ),
        (
            "via: order_customer",
            "via: order_buyer",
            "metrics/revenue.md:16: dimensions[0].via: no relationship is called 'order_buyer'",
        ),
        (
            "grains: [day, month, year]",
            "grains: []",
            "metrics/revenue.md:10: grains: list at least one grain",
        ),
        (
            "grains: [day, month, year]",
            "grains: [day, month, day]",
            "metrics/revenue.md:10: grains[2]: the grain day is listed twice",
        ),
        (
            "  - name: channel",
            "  - name: region",
            "metrics/revenue.md:18: dimensions[1].name: the dimension 'region' is listed twice",
        ),
        (
            "  - name: channel",
            "  - name: paid_share",
            "metrics/revenue.md:18: dimensions[1].name: a dimension may not share its name with a metric",
        ),
        (
            "end: 2025-01-01",
            "end: 2024-01-01",
            "metrics/revenue.md:21: anchor.range: the range must start before it ends (end is exclusive)",
        ),
        (
            "value: 1234.50",
            "value: 1,234.50",
            "metrics/revenue.md:22: anchor.value: expected a plain decimal number such as 1234567.89",
        ),
        (
            "value: 1234.50",
            "value: 1e3",
            "metrics/revenue.md:22: anchor.value: expected a plain decimal number such as 1234567.89",
        ),
    ],
)
def test_a_metric_that_reads_what_does_not_exist_is_refused(
    old: str, new: str, sentence: str
) -> None:
    assert _sentences(sample_documents(metrics__revenue=REVENUE.replace(old, new))) == [sentence]


@pytest.mark.parametrize("value", ["0", "-12", "1234567.89", "0.000"])
def test_an_anchor_value_is_plain_decimal_text(value: str) -> None:
    _catalog(sample_documents(metrics__revenue=REVENUE.replace("1234.50", value)))


def test_a_count_if_column_must_exist() -> None:
    documents = sample_documents(metrics__paid_share=PAID_SHARE.replace("is_paid", "paid"))
    assert _sentences(documents) == [
        "metrics/paid_share.md:7: measure.ratio.numerator.count_if: "
        "the model 'orders' has no column 'paid'"
    ]


def test_a_via_chain_must_start_at_the_metric_model_and_follow_each_target() -> None:
    reverse = ORDER_CUSTOMER.replace("name: order_customer", "name: customer_order")
    reverse = reverse.replace("origin_model: orders", "origin_model: X").replace(
        "target_model: customers", "target_model: orders"
    )
    reverse = reverse.replace("origin_model: X", "origin_model: customers")
    reverse = reverse.replace("target: customer_id}", "target: order_id}")
    text = REVENUE.replace("via: order_customer", "via: [order_customer, order_customer_2]")
    second = ORDER_CUSTOMER.replace("name: order_customer", "name: order_customer_2")
    documents = sample_documents(
        relationships__customer_order=reverse,
        relationships__order_customer_2=second,
        metrics__revenue=text,
    )
    assert _sentences(documents) == [
        "metrics/revenue.md:16: dimensions[0].via[1]: the relationship 'order_customer_2' "
        "starts from the model 'orders', but the chain is at the model 'customers'"
    ]


def test_a_via_chain_of_two_steps_reaches_the_last_model() -> None:
    regions = (
        "---\nkind: model\nname: regions\nsource: main\ntable: shop_regions\n"
        "columns: [region_code, region_name]\nprimary_key: region_code\n---\n"
    )
    customers = CUSTOMERS.replace("customer_segment]", "customer_segment, region_code]")
    step = (
        "---\nkind: relationship\nname: customer_region\norigin_model: customers\n"
        "target_model: regions\nkeys:\n  - equal: {origin: region_code, target: region_code}\n"
        "join_type: many_to_one\n---\n"
    )
    text = REVENUE.replace("via: order_customer", "via: [order_customer, customer_region]")
    text = text.replace("column: sales_region", "column: region_name")
    documents = sample_documents(
        models__customers=customers,
        models__regions=regions,
        relationships__customer_region=step,
        metrics__revenue=text,
    )
    catalog = _catalog(documents)
    assert catalog.metrics[1].dimensions[0].via == ("order_customer", "customer_region")


def test_a_relationship_between_models_of_two_sources_is_refused_at_its_target_model() -> None:
    customers = CUSTOMERS.replace("source: main", "source: crm")
    sentences = _sentences(sample_documents(models__customers=customers))
    assert (
        "relationships/order_customer.md:5: target_model: the model 'customers' reads the "
        "source 'crm' and the model 'orders' reads 'main'; one statement reads one source, "
        "so a relationship joins models of one source"
    ) in sentences


def test_a_dimension_reached_through_a_relationship_into_another_source_is_refused() -> None:
    customers = CUSTOMERS.replace("source: main", "source: crm")
    sentences = _sentences(sample_documents(models__customers=customers))
    assert sentences[-1] == (
        "metrics/revenue.md:16: dimensions[0].via: the relationship 'order_customer' leads to "
        "the model 'customers' on the source 'crm', but the metric's model 'orders' reads "
        "'main'; one statement reads one source"
    )
    assert len(sentences) == 2  # the relationship, and the one dimension that walks it


def test_a_via_chain_is_refused_at_the_step_that_leaves_the_metric_source() -> None:
    regions = (
        "---\nkind: model\nname: regions\nsource: geo\ntable: shop_regions\n"
        "columns: [region_code, region_name]\nprimary_key: region_code\n---\n"
    )
    customers = CUSTOMERS.replace("customer_segment]", "customer_segment, region_code]")
    step = (
        "---\nkind: relationship\nname: customer_region\norigin_model: customers\n"
        "target_model: regions\nkeys:\n  - equal: {origin: region_code, target: region_code}\n"
        "join_type: many_to_one\n---\n"
    )
    text = REVENUE.replace("via: order_customer", "via: [order_customer, customer_region]")
    text = text.replace("column: sales_region", "column: region_name")
    documents = sample_documents(
        models__customers=customers,
        models__regions=regions,
        relationships__customer_region=step,
        metrics__revenue=text,
    )
    assert _sentences(documents)[-1].startswith(
        "metrics/revenue.md:16: dimensions[0].via[1]: the relationship 'customer_region' "
        "leads to the model 'regions' on the source 'geo', but the metric's model 'orders' "
        "reads 'main'"
    )


@pytest.mark.parametrize(
    ("old", "new", "sentence"),
    [
        (
            "origin_model: orders",
            "origin_model: sales",
            "relationships/order_customer.md:4: origin_model: no model is called 'sales'",
        ),
        (
            "target_model: customers",
            "target_model: buyers",
            "relationships/order_customer.md:5: target_model: no model is called 'buyers'",
        ),
        (
            "{origin: customer_id,",
            "{origin: buyer_id,",
            "relationships/order_customer.md:7: keys[0].equal.origin: the model 'orders' has no column 'buyer_id'",
        ),
        (
            "target: customer_id}",
            "target: id}",
            "relationships/order_customer.md:7: keys[0].equal.target: the model 'customers' has no column 'id'",
        ),
    ],
)
def test_a_relationship_must_join_existing_models_on_existing_columns(
    old: str, new: str, sentence: str
) -> None:
    text = ORDER_CUSTOMER.replace(old, new)
    documents = sample_documents(relationships__order_customer=text)
    assert sentence in _sentences(documents)


def test_every_problem_is_collected_not_just_the_first() -> None:
    broken_metric = REVENUE.replace("column: amount", "column: total").replace(
        "grains: [day, month, year]", "grains: []"
    )
    broken_relationship = ORDER_CUSTOMER.replace("target: customer_id}", "target: id}")
    documents = sample_documents(
        metrics__revenue=broken_metric,
        relationships__order_customer=broken_relationship,
        models__copy=ORDERS,
    )
    assert _sentences(documents) == [
        "models/orders.md:3: name: another model is already called 'orders', "
        "in 'models/copy.md' line 3",
        "relationships/order_customer.md:7: keys[0].equal.target: "
        "the model 'customers' has no column 'id'",
        "metrics/revenue.md:10: grains: list at least one grain",
        "metrics/revenue.md:8: measure.simple.column: the model 'orders' has no column 'total'",
    ]


def test_a_relationship_onto_a_model_without_a_primary_key_is_refused() -> None:
    customers = CUSTOMERS.replace("primary_key: customer_id\n", "")
    assert _sentences(sample_documents(models__customers=customers)) == [
        "relationships/order_customer.md:5: target_model: the model 'customers' declares no "
        "primary_key; a many_to_one relationship joins onto its target's primary key, so that a "
        "join never counts a row twice"
    ]


def test_a_relationship_that_does_not_join_onto_the_target_primary_key_is_refused() -> None:
    customers = CUSTOMERS.replace("primary_key: customer_id", "primary_key: sales_region")
    assert _sentences(sample_documents(models__customers=customers)) == [
        "relationships/order_customer.md:6: keys: no key joins onto the primary key "
        "'sales_region' of the model 'customers'; a many_to_one relationship joins onto it, so "
        "that a join never counts a row twice"
    ]


def test_a_relationship_with_the_primary_key_among_several_keys_is_kept() -> None:
    relationship = ORDER_CUSTOMER.replace(
        "  - equal: {origin: customer_id, target: customer_id}\n",
        "  - equal: {origin: sales_channel, target: customer_segment}\n"
        "  - equal: {origin: customer_id, target: customer_id}\n",
    )
    catalog = _catalog(sample_documents(relationships__order_customer=relationship))
    assert len(catalog.relationships[0].keys) == 2


def test_a_via_chain_that_comes_back_to_a_model_it_has_left_is_refused() -> None:
    back = (
        "---\nkind: relationship\nname: customer_last_order\norigin_model: customers\n"
        "target_model: orders\nkeys:\n  - equal: {origin: customer_id, target: order_id}\n"
        "join_type: many_to_one\n---\n"
    )
    text = REVENUE.replace("via: order_customer", "via: [order_customer, customer_last_order]")
    text = text.replace("column: sales_region", "column: sales_channel")
    documents = sample_documents(relationships__customer_last_order=back, metrics__revenue=text)
    assert _sentences(documents) == [
        "metrics/revenue.md:16: dimensions[0].via[1]: the relationship 'customer_last_order' "
        "leads back to the model 'orders', which the chain has already reached; a via chain "
        "visits each model once, so that a join never counts a row twice"
    ]
