"""A small catalog written in the expression vocabulary: line items, their orders and parts."""

from returns.pipeline import is_successful

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import Document, parse_document
from sutura.core.catalog.error import CatalogError
from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.model import Catalog
from tests.core.catalog_samples import parsed

LINEITEM = """\
---
kind: model
name: lineitem
source: main
table: lineitem
primary_key: [l_orderkey, l_linenumber]
columns:
  - {name: l_orderkey, type: BIGINT}
  - {name: l_linenumber, type: INTEGER}
  - {name: l_partkey, type: BIGINT}
  - {name: l_quantity, type: "DECIMAL(15,2)"}
  - {name: l_extendedprice, type: "DECIMAL(15,2)"}
  - {name: l_discount, type: "DECIMAL(15,2)"}
  - {name: l_shipdate, type: DATE}
  - {name: l_commitdate, type: DATE}
  - {name: l_receiptdate, type: DATE}
  - {name: l_shipmode, type: "CHAR(10)"}
  - {name: l_returnflag, type: "CHAR(1)"}
  - {name: l_loaded_at, type: TIMESTAMP}
  - {name: l_rush, type: BOOLEAN}
  - l_comment
---
"""

ORDERS = """\
---
kind: model
name: orders
source: main
table: orders
primary_key: o_orderkey
columns:
  - {name: o_orderkey, type: BIGINT}
  - {name: o_orderdate, type: DATE}
  - {name: o_orderpriority, type: "CHAR(15)"}
  - {name: o_totalprice, type: "DECIMAL(15,2)"}
---
"""

PART = """\
---
kind: model
name: part
source: main
table: part
primary_key: p_partkey
columns:
  - {name: p_partkey, type: BIGINT}
  - {name: p_type, type: "VARCHAR(25)"}
  - {name: p_size, type: INTEGER}
---
"""

LINEITEM_ORDER = """\
---
kind: relationship
name: lineitem_order
origin_model: lineitem
target_model: orders
keys:
  - equal: {origin: l_orderkey, target: o_orderkey}
join_type: many_to_one
---
"""

LINEITEM_PART = """\
---
kind: relationship
name: lineitem_part
origin_model: lineitem
target_model: part
keys:
  - equal: {origin: l_partkey, target: p_partkey}
join_type: many_to_one
---
"""

PROMO_REVENUE = """\
---
kind: metric
name: promo_revenue
model: lineitem
measure:
  ratio:
    numerator:
      aggregate: sum
      of: {multiply: [{column: l_extendedprice}, {subtract: [1, {column: l_discount}]}]}
      where: {starts_with: [{column: p_type, via: lineitem_part}, PROMO]}
    denominator:
      aggregate: sum
      of: {multiply: [{column: l_extendedprice}, {subtract: [1, {column: l_discount}]}]}
    zero_denominator: yields_null
time_column: {column: l_shipdate}
grains: [month, year]
dimensions:
  - name: shipmode
    column: l_shipmode
    values: [MAIL, SHIP]
audience: open
---
"""

LATE_LINES = """\
---
kind: metric
name: late_lines
model: lineitem
measure:
  simple:
    aggregate: count
    where:
      or:
        - {less_than: [{column: l_commitdate}, {column: l_receiptdate}]}
        - {in: [{column: o_orderpriority, via: lineitem_order}, [1-URGENT, 2-HIGH]]}
time_column: {column: o_orderdate, via: lineitem_order}
grains: [year]
required_filters:
  - between: [{column: l_discount}, 0.05, 0.07]
  - not: {is_null: {column: l_shipmode}}
dimensions:
  - name: weekday
    expression: {day_of_week: {column: l_shipdate}}
    type: integer
  - name: size
    expression:
      buckets: {of: {column: l_quantity}, edges: [10, 25], labels: [small, medium, large]}
    type: text
  - name: priority
    expression: {coalesce: [{column: o_orderpriority, via: lineitem_order}, unknown]}
    type: text
audience: open
---
"""

MEDIAN_PRICE = """\
---
kind: metric
name: median_price
model: lineitem
measure:
  simple:
    aggregate: percentile
    of: {divide: [{column: l_extendedprice}, {column: l_quantity}]}
    fraction: "0.90"
time_column: l_shipdate
grains: [year]
dimensions: []
audience: open
---
"""

LINE_REVENUE = """\
---
kind: metric
name: line_revenue
model: lineitem
measure:
  simple:
    aggregate: sum
    of: {multiply: [{column: l_extendedprice}, {column: l_discount}]}
time_column: l_shipdate
grains: [year]
dimensions:
  - {name: quantity, column: l_quantity}
  - {name: discount, column: l_discount}
  - {name: shipped, column: l_shipdate}
  - {name: loaded, column: l_loaded_at}
  - {name: rush, column: l_rush}
  - {name: priority, column: o_orderpriority, via: [lineitem_order]}
  - {name: comment, column: l_comment}
audience: open
---
"""

EXPRESSIONS = {
    "models/lineitem.md": LINEITEM,
    "models/orders.md": ORDERS,
    "models/part.md": PART,
    "relationships/lineitem_order.md": LINEITEM_ORDER,
    "relationships/lineitem_part.md": LINEITEM_PART,
    "metrics/promo_revenue.md": PROMO_REVENUE,
    "metrics/late_lines.md": LATE_LINES,
    "metrics/median_price.md": MEDIAN_PRICE,
    "metrics/line_revenue.md": LINE_REVENUE,
}


def expression_catalog(**replaced: str) -> Catalog:
    """The catalog above (documents replaced or added by label, ``/`` written ``__``)."""
    result = check_catalog(_documents(replaced))
    assert is_successful(result), [e.sentence() for e in result.failure()]
    return result.unwrap()


def expression_errors(**replaced: str) -> list[str]:
    """The sentences of every problem the catalog above has with documents replaced."""
    documents = []
    for label, text in _texts(replaced).items():
        parsed_document = parse_document(label, text)
        if not is_successful(parsed_document):
            return [parsed_document.failure().sentence()]
        documents.append(parsed_document.unwrap())
    result = check_catalog(documents)
    assert not is_successful(result), "expected a problem"
    errors: list[CatalogError] = result.failure()
    return [e.sentence() for e in errors]


def metric_digest(name: str, **replaced: str) -> str:
    """The digest of the metric ``name`` in the catalog above with documents replaced."""
    return pin(expression_catalog(**replaced), "v", "UTC").metric_digests[name]


def _texts(replaced: dict[str, str]) -> dict[str, str]:
    texts = dict(EXPRESSIONS)
    for name, text in replaced.items():
        texts[name.replace("__", "/") + ".md"] = text
    return dict(sorted(texts.items()))


def _documents(replaced: dict[str, str]) -> list[Document]:
    return [parsed(label, text) for label, text in _texts(replaced).items()]
