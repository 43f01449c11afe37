"""The dbt import's translation, on dbt Labs' jaffle shop manifest (as `dbt parse` wrote it) and
on edits of it that reach each refusal: every element is carried over or named with a reason."""

import copy
import json
from typing import Any

from dbt_semantic_interfaces.implementations.semantic_manifest import PydanticSemanticManifest

from sutura.core.catalog.document.parse import parse_document
from sutura.core.catalog.draft import FoundTable
from sutura.core.dbt.translate import Imported, import_manifest
from tests.workloads.jaffle_sl import MANIFEST, RELATIONS, columns

FOUND: dict[tuple[str, ...], FoundTable] = {
    (name,): FoundTable(table=(name,), columns=columns(name)) for name in RELATIONS
}


def _raw() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
    return loaded


def _imported(raw: dict[str, Any]) -> Imported:
    manifest = PydanticSemanticManifest.parse_obj(raw)
    return import_manifest(manifest, FOUND, "jaffle", {"metric.orders": "models/o.yml"}).unwrap()


def _reasons(imported: Imported) -> dict[str, str]:
    return {s.item: s.reason for s in imported.skipped}


def _document(imported: Imported, path: str) -> str:
    return next(d.text for d in imported.documents if d.path == path)


def test_the_jaffle_manifest_is_carried_over_and_every_document_parses() -> None:
    imported = _imported(_raw())
    paths = sorted(d.path for d in imported.documents)
    assert [p for p in paths if p.startswith("models/")] == [
        "models/customers.md",
        "models/locations.md",
        "models/order_item.md",
        "models/orders.md",
        "models/stg_products.md",
    ]
    assert [p for p in paths if p.startswith("relationships/")] == [
        "relationships/order_item_order_id.md",
        "relationships/order_item_product.md",
        "relationships/orders_customer.md",
        "relationships/orders_location.md",
    ]
    for document in imported.documents:
        parsed = parse_document(document.path, document.text)
        assert parsed.map(lambda _: True).value_or(False), (document.path, parsed)
    reasons = _reasons(imported)
    assert "cumulative" in reasons["metric cumulative_revenue"]
    assert "approximate percentile" in reasons["metric median_revenue"]
    assert "join_to_timespine" in reasons["metric orders_fill_nulls_with_zero"]
    assert "offset in time" in reasons["metric revenue_growth_mom"]
    assert "+ - * /" in reasons["metric twice_orders_fill_nulls_with_0"]
    assert imported.counts.metrics == (18, 12)


def test_filters_and_expressions_become_typed_structure() -> None:
    imported = _imported(_raw())
    large = _document(imported, "metrics/large_order.md")
    assert 'simple: {aggregate: sum, of: {number: "1"}}' in large
    assert '  - {at_least: [{column: order_total}, {number: "20"}]}' in large
    new = _document(imported, "metrics/new_customer.md")
    assert "{equals: [{column: customer_type, via: [orders_customer]}, {text: new}]}" in new
    food = _document(imported, "metrics/food_revenue.md")
    assert '{case: [{when: {equals: [{column: is_food_item}, {number: "1"}]}' in food
    pct = _document(imported, "metrics/food_revenue_pct.md")
    assert "zero_denominator: yields_null" in pct
    profit = _document(imported, "metrics/order_gross_profit.md")
    assert "op: difference" in profit and "of: [revenue, order_cost]" in profit
    orders = _document(imported, "metrics/orders.md")
    assert orders.startswith("---\n# imported by sutura import dbt from models/o.yml")
    assert "{name: customer__customer_type, column: customer_type, via: [orders_customer]}" in (
        orders
    )
    assert "{name: order_id__ordered_at, expression: {date_of: {column: ordered_at}}" in orders


def _metric(raw: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(m for m in raw["metrics"] if m["name"] == name)
    return found


def _measure(raw: dict[str, Any], name: str) -> dict[str, Any]:
    for model in raw["semantic_models"]:
        for measure in model["measures"]:
            if measure["name"] == name:
                found: dict[str, Any] = measure
                return found
    raise AssertionError(name)


def test_what_has_no_counterpart_is_named_with_its_reason() -> None:
    raw = copy.deepcopy(_raw())
    _measure(raw, "order_total")["expr"] = "order_total / 2"
    _metric(raw, "orders")["filter"] = {
        "where_filters": [
            {"where_sql_template": "{{ Metric('revenue', group_by=['order_id']) }} > 3"}
        ]
    }
    _metric(raw, "food_orders")["filter"] = {
        "where_filters": [
            {"where_sql_template": "{{ Dimension('customer__customer_name') }} like 'A%'"}
        ]
    }
    _measure(raw, "order_cost")["non_additive_dimension"] = {
        "name": "ordered_at",
        "window_choice": "max",
        "window_groupings": [],
    }
    _measure(raw, "customers_with_orders")["expr"] = "upper(customer_id)"
    reasons = _reasons(_imported(raw))
    assert reasons["metric order_total"] == (
        "its measure order_total: the expression 'order_total / 2' divides; sutura's quotient"
        " is a decimal cut at six places, the warehouse's is its own"
    )
    assert "Metric('revenue')" in reasons["metric orders"]
    assert "LIKE" in reasons["metric food_orders"]
    assert "semi-additive" in reasons["metric order_cost"]
    assert "'upper'" in reasons["metric customers_with_orders"]
    # What reads a metric not carried over goes with it, named.
    assert "order_cost" in reasons["metric order_gross_profit"]


def test_a_relation_the_source_lacks_takes_its_semantic_model_out_with_a_reason() -> None:
    raw = copy.deepcopy(_raw())
    next(m for m in raw["semantic_models"] if m["name"] == "customers")["node_relation"][
        "alias"
    ] = "gone"
    imported = _imported(raw)
    reasons = _reasons(imported)
    assert "no table" in reasons["semantic model customers"]
    assert "reads 'customer__customer_type'" in reasons["metric new_customer"]
    assert not [d for d in imported.documents if d.path == "models/customers.md"]


def test_a_document_the_catalogs_checks_refuse_is_named_with_their_sentence() -> None:
    raw = copy.deepcopy(_raw())
    _metric(raw, "orders")["filter"] = {
        "where_filters": [
            {"where_sql_template": "{{ Dimension('order_id__is_food_order') }} > 'x'"}
        ]
    }
    imported = _imported(raw)
    reasons = _reasons(imported)
    assert reasons["metric orders"].startswith("sutura check refuses it: metrics/orders.md:")
    assert not [d for d in imported.documents if d.path == "metrics/orders.md"]
    assert imported.counts.metrics == (18, 11)


def test_a_filter_on_a_day_compares_days() -> None:
    raw = copy.deepcopy(_raw())
    _metric(raw, "orders")["filter"] = {
        "where_filters": [
            {"where_sql_template": "{{ TimeDimension('metric_time', 'day') }} >= '2019-01-01'"},
            {"where_sql_template": "{{ Dimension('customer__first_ordered_at') }} < '2019-02-01'"},
        ]
    }
    orders = _document(_imported(raw), "metrics/orders.md")
    assert '  - {at_least: [{date_of: {column: ordered_at}}, {date: "2019-01-01"}]}' in orders
    assert (
        "  - {less_than: [{date_of: {column: first_ordered_at, via: [orders_customer]}},"
        ' {date: "2019-02-01"}]}' in orders
    )
