"""dbt Labs' jaffle shop semantic-layer project (vendored, see README.md), for the dbt import."""

from pathlib import Path
from typing import Final

HERE: Final = Path(__file__).parent
PROJECT: Final = HERE / "project"
MANIFEST: Final = HERE / "semantic_manifest.json"

# The relations the semantic models read, with the columns dbt-duckdb builds (DESCRIBE), in the
# order the manifest's relations name them; types as DuckDB and PostgreSQL both spell them.
RELATIONS: Final = {
    "orders": "order_id VARCHAR, location_id VARCHAR, customer_id VARCHAR, order_total DOUBLE,"
    " tax_paid DOUBLE, ordered_at TIMESTAMP, is_food_order BOOLEAN, is_drink_order BOOLEAN,"
    " order_cost DOUBLE",
    "order_items": "order_item_id VARCHAR, order_id VARCHAR, product_id VARCHAR,"
    " product_price DOUBLE, supply_cost DOUBLE, is_food_item INTEGER, is_drink_item INTEGER,"
    " ordered_at TIMESTAMP",
    "customers": "customer_id VARCHAR, customer_name VARCHAR, count_lifetime_orders BIGINT,"
    " first_ordered_at TIMESTAMP, last_ordered_at TIMESTAMP, lifetime_spend_pretax DOUBLE,"
    " lifetime_spend DOUBLE, customer_type VARCHAR",
    "stg_locations": "location_id VARCHAR, location_name VARCHAR, tax_rate DOUBLE,"
    " opened_at TIMESTAMP",
    "stg_products": "product_id VARCHAR, product_name VARCHAR, product_type VARCHAR,"
    " product_description VARCHAR, product_price DOUBLE, is_food_item INTEGER,"
    " is_drink_item INTEGER",
}


def columns(relation: str) -> tuple[tuple[str, str], ...]:
    """The (name, type) pairs of one relation."""
    pairs = (part.strip().split(" ", 1) for part in RELATIONS[relation].split(","))
    return tuple((name, kind) for name, kind in pairs)
