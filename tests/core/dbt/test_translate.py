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
    assert reasons["metric twice_orders_fill_nulls_with_0"] == (
        "its input orders_fill_nulls_with_zero is not carried over as a metric (its line says why)"
    )
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
    # Dimensions are the models' own, shared with every metric reaching them: no metric lists
    # them, and each is named as MetricFlow names it from its own model.
    assert "dimensions" not in orders
    customers = _document(imported, "models/customers.md")
    assert "  - {name: customer__customer_type, column: customer_type}" in customers
    model = _document(imported, "models/orders.md")
    assert (
        "  - {name: order_id__ordered_at, expression: {date_of: {column: ordered_at}},"
        " type: date}" in model
    )
    derived = _document(imported, "metrics/order_gross_profit.md")
    assert "customer__customer_type" in derived and "product__product_type" not in derived


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
        "window_groupings": ["customer"],
    }
    _measure(raw, "customers_with_orders")["expr"] = "upper(customer_id)"
    reasons = _reasons(_imported(raw))
    assert reasons["metric order_total"] == (
        "its measure order_total: the expression 'order_total / 2' divides; sutura's quotient"
        " is a decimal cut at six places, the warehouse's is its own"
    )
    assert "Metric('revenue')" in reasons["metric orders"]
    assert "LIKE" in reasons["metric food_orders"]
    # ordered_at is a timestamp: MetricFlow keeps the last day's rows, sutura the last instant's.
    assert "not a DATE column at the grain of a day" in reasons["metric order_cost"]
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


def _dated_orders() -> tuple[dict[str, Any], dict[tuple[str, ...], FoundTable]]:
    """The jaffle manifest with orders counted by a DATE column (``ordered_at`` read as it is),
    and the source's tables with that column a DATE."""
    raw = copy.deepcopy(_raw())
    orders = next(m for m in raw["semantic_models"] if m["name"] == "orders")
    next(d for d in orders["dimensions"] if d["name"] == "ordered_at")["expr"] = "ordered_at"
    dated = tuple(
        (name, "DATE" if name == "ordered_at" else kind) for name, kind in columns("orders")
    )
    return raw, {**FOUND, ("orders",): FoundTable(table=("orders",), columns=dated)}


def _semi(raw: dict[str, Any], measure: str, choice: str, groupings: list[str]) -> None:
    _measure(raw, measure)["non_additive_dimension"] = {
        "name": "ordered_at",
        "window_choice": choice,
        "window_groupings": groupings,
    }


def test_a_non_additive_dimension_becomes_a_semi_additive_metric_where_the_rows_are_the_same() -> (
    None
):
    raw, found = _dated_orders()
    _semi(raw, "order_total", "max", ["customer"])
    _semi(raw, "order_count", "min", ["customer", "location"])
    _semi(raw, "order_cost", "max", [])
    _semi(raw, "customers_with_orders", "max", ["customer"])
    _measure(raw, "tax_paid")["non_additive_dimension"] = {
        "name": "order_total_dim",
        "window_choice": "max",
        "window_groupings": ["customer"],
    }
    new = "{{ Dimension('customer__customer_type') }} = 'new'"
    _metric(raw, "order_total")["filter"] = {"where_filters": [{"where_sql_template": new}]}
    ratio = _metric(raw, "food_revenue_pct")["type_params"]
    ratio["numerator"]["name"], ratio["denominator"]["name"] = "order_total", "orders"
    manifest = PydanticSemanticManifest.parse_obj(raw)
    imported = import_manifest(manifest, found, "jaffle", {}).unwrap()
    share = _document(imported, "metrics/food_revenue_pct.md")
    assert "  op: ratio\n  of: [order_total, orders]\n" in share
    total = _document(imported, "metrics/order_total.md")
    assert "semi_additive: {rule: last, entity: [customer_id]}" in total
    assert "{equals: [{column: customer_type, via: [orders_customer]}, {text: new}]}" in total
    count = _document(imported, "metrics/orders.md")
    assert "semi_additive: {rule: first, entity: [customer_id, location_id]}" in count
    reasons = _reasons(imported)
    assert "has no window_groupings" in reasons["metric order_cost"]
    assert "aggregates them with count_distinct" in reasons["metric customers_with_orders"]
    # What reads the metric not carried over goes with it; a ratio of a semi-additive metric
    # is a derived metric over it.
    assert "order_cost" in reasons["metric order_gross_profit"]
    for document in imported.documents:
        assert parse_document(document.path, document.text).map(lambda _: True).value_or(False)
    assert not [s for s in imported.skipped if "sutura check refuses" in s.reason]
    assert imported.counts.semi_additive == (5, 2)


def test_a_non_additive_dimension_other_than_the_time_column_is_named_with_its_reason() -> None:
    raw, found = _dated_orders()
    # ordered_at_test reads the same column, but the measure is counted by ordered_at.
    _semi(raw, "order_total", "max", ["customer"])
    _measure(raw, "order_total")["non_additive_dimension"]["name"] = "ordered_at_test"
    manifest = PydanticSemanticManifest.parse_obj(raw)
    reasons = _reasons(import_manifest(manifest, found, "jaffle", {}).unwrap())
    assert "is not its agg_time_dimension" in reasons["metric order_total"]


def test_a_filter_two_relationships_away_is_read_along_its_entity_path() -> None:
    raw = copy.deepcopy(_raw())
    walked = "{{ Dimension('customer__customer_type', entity_path=['order_id']) }} = 'new'"
    _metric(raw, "food_revenue")["filter"] = {"where_filters": [{"where_sql_template": walked}]}
    food = _document(_imported(raw), "metrics/food_revenue.md")
    assert (
        "  - {equals: [{column: customer_type, via: [order_item_order_id, orders_customer]},"
        " {text: new}]}" in food
    )


def test_a_dimension_the_catalogs_checks_refuse_is_taken_off_its_model_alone() -> None:
    raw = copy.deepcopy(_raw())
    orders = next(m for m in raw["semantic_models"] if m["name"] == "orders")
    mixed = "coalesce(order_total, 'none')"
    orders["dimensions"].append({"name": "mixed", "type": "categorical", "expr": mixed})
    imported = _imported(raw)
    reasons = _reasons(imported)
    assert reasons["dimension mixed"].startswith("sutura check refuses it: models/orders.md:"), (
        reasons["dimension mixed"]
    )
    model = _document(imported, "models/orders.md")
    assert "order_id__mixed" not in model and "order_id__is_food_order" in model
    assert imported.counts.metrics == (18, 12)
    assert imported.counts.dimensions == (21, 20)


def test_a_model_reached_along_two_paths_lends_its_dimensions_to_no_metric_by_name() -> None:
    raw = copy.deepcopy(_raw())
    items = next(m for m in raw["semantic_models"] if m["name"] == "order_item")
    items["entities"].append({"name": "customer", "type": "foreign", "expr": "customer_id"})
    with_buyer = (*columns("order_items"), ("customer_id", "VARCHAR"))
    found = {**FOUND, ("order_items",): FoundTable(table=("order_items",), columns=with_buyer)}
    manifest = PydanticSemanticManifest.parse_obj(raw)
    imported = import_manifest(manifest, found, "jaffle", {}).unwrap()
    revenue = _document(imported, "metrics/revenue.md")
    # Customers are reached directly and through orders: the metric lists every other shared
    # dimension by name, and the report names each one it leaves.
    assert "\n  - order_id__is_food_order\n" in revenue and "customer__" not in revenue
    assert "\n  - product__product_type\n" in revenue
    reasons = _reasons(imported)
    assert reasons["metric revenue: dimension customer__customer_type"] == (
        "not listed: the model 'customers' is reached along two paths; a metric then declares"
        " it with the via chain it means"
    )
    assert not [s for s in imported.skipped if "sutura check refuses" in s.reason]
    assert "dimensions" not in _document(imported, "metrics/orders.md")
