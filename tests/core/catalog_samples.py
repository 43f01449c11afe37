"""A small valid catalog as document texts, and helpers to parse and break it."""

from returns.pipeline import is_successful

from sutura.core.catalog.document.parse import Document, parse_document
from sutura.core.catalog.error import CatalogError

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
    description: Charged, in euros.
  - order_status
  - sales_channel
  - is_paid
---
One row per order.
"""

CUSTOMERS = """\
---
kind: model
name: customers
source: main
table: shop_customers
columns: [customer_id, sales_region, customer_segment]
primary_key: customer_id
---
One row per buyer.
"""

ORDER_CUSTOMER = """\
---
kind: relationship
name: order_customer
origin_model: orders
target_model: customers
keys:
  - equal: {origin: customer_id, target: customer_id}
join_type: many_to_one
---
"""

REVENUE = """\
---
kind: metric
name: revenue
model: orders
measure:
  simple:
    aggregate: sum
    column: amount
time_column: ordered_on
grains: [day, month, year]
required_filters:
  - not_equals: {column: order_status, value: cancelled}
dimensions:
  - name: region
    column: sales_region
    via: order_customer
    values: [north, south]
  - name: channel
    column: sales_channel
anchor:
  range: {start: 2024-01-01, end: 2025-01-01}
  value: 1234.50
audience: open
---
Revenue, in euros.
"""

PAID_SHARE = """\
---
kind: metric
name: paid_share
model: orders
measure:
  ratio:
    numerator: {count_if: is_paid}
    denominator: {aggregate: count, column: order_id}
    zero_denominator: yields_null
time_column: ordered_on
grains: [month]
dimensions: []
audience: open
---
"""

GLOSSARY_SALES = """\
---
kind: glossary
term: sales
synonyms: [turnover, takings]
means:
  metric: revenue
---
What the shop charged.
"""

GLOSSARY_NORTH = """\
---
kind: glossary
term: northern sales
means: {metric: revenue, dimension: region, value: north}
---
"""

CAVEAT = """\
---
kind: caveat
name: late_refunds
about:
  - metric: revenue
  - metric: paid_share
---
Refunds arrive up to 30 days late.
"""

NOT_DEFINED = """\
---
kind: not_defined
phrase: churn
synonyms: [attrition]
---
Nothing here counts customers who left; ask for paid_share instead.
"""

EXAMPLE = """\
---
kind: example
name: northern_revenue_by_month
asked:
  - How much did the north sell each month of 2024?
question:
  metrics: [revenue]
  grain: month
  range: {start: 2024-01-01, end: 2025-01-01}
  filters:
    - {op: eq, dimension: region, value: north}
  top: {n: 5, by: revenue}
---
The five best months of the north.
"""

KNOWLEDGE = {
    "knowledge/sales.md": GLOSSARY_SALES,
    "knowledge/northern_sales.md": GLOSSARY_NORTH,
    "knowledge/late_refunds.md": CAVEAT,
    "knowledge/churn.md": NOT_DEFINED,
    "knowledge/northern_revenue.md": EXAMPLE,
}
"""One document of each knowledge kind (two glossary terms) about the sample's metrics."""

SAMPLE = {
    "models/orders.md": ORDERS,
    "models/customers.md": CUSTOMERS,
    "relationships/order_customer.md": ORDER_CUSTOMER,
    "metrics/revenue.md": REVENUE,
    "metrics/paid_share.md": PAID_SHARE,
}


def parsed(label: str, text: str) -> Document:
    """The document ``text`` parses to; the test fails if it does not parse."""
    result = parse_document(label, text)
    assert is_successful(result), result.failure().sentence()
    return result.unwrap()


def parse_error(label: str, text: str) -> CatalogError:
    """The error ``text`` parses to; the test fails if it parses."""
    result = parse_document(label, text)
    assert not is_successful(result), "expected a parse error"
    return result.failure()


def sample_documents(**replaced: str) -> list[Document]:
    """The sample catalog, parsed, with documents replaced or added by label.

    Keyword names are labels with ``/`` written ``__`` and ``.md`` left out, e.g.
    ``metrics__revenue=...``.
    """
    texts = dict(SAMPLE)
    for name, text in replaced.items():
        texts[name.replace("__", "/") + ".md"] = text
    return [parsed(label, text) for label, text in sorted(texts.items())]
