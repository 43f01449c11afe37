"""The example: a deterministic shop dataset in DuckDB, its catalog and its settings file.

Every row comes from integer arithmetic on the row number (multiplicative hashing modulo
fixed numbers), never from ``random()`` or ``hash()``, so every DuckDB version writes the
same rows for the same ``orders``. The anchors of the catalog are computed here with this
module's own SQL, independent of the project's compiler, and written into the templates.
"""

import decimal
import re
from importlib import resources
from pathlib import Path

import duckdb

from sutura.boundary.schema_files import modeline_for, write_schema_copies
from sutura.core.catalog.draft import with_modeline

TEMPLATE_PACKAGE = "sutura"
TEMPLATE_DIR = "example"
DATABASE = Path("data") / "example.duckdb"
CATALOG = Path("catalog")
SETTINGS = Path("base.yaml")

SETTINGS_TEXT = """\
catalog:
  dir: catalog
  version: example-1
sources:
  main:
    kind: duckdb
    path: data/example.duckdb
security:
  identity: single-user
  single_user_because: the example serves one person on one machine
"""

_CUSTOMERS_SQL = """
CREATE TABLE customers AS
SELECT
    CAST(i AS INTEGER) AS customer_id,
    'Customer ' || lpad(CAST(i AS VARCHAR), 7, '0') AS customer_name,
    CASE (h // 65536) % 4
        WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN 'east' ELSE 'west'
    END AS sales_region,
    CASE WHEN (h // 4096) % 10 < 7 THEN 'consumer' ELSE 'business' END AS customer_segment,
    DATE '2022-01-01' + CAST((h // 64) % 1095 AS INTEGER) AS signed_up_on
FROM (SELECT i, (i * 2654435761) % 4294967296 AS h FROM range(1, $customers + 1) AS t(i))
ORDER BY customer_id
"""

_ORDERS_SQL = """
CREATE TABLE orders AS
SELECT
    CAST(i AS INTEGER) AS order_id,
    CAST(1 + (a // 256) % $customers AS INTEGER) AS customer_id,
    DATE '2023-01-01' + CAST((b // 128) % 1096 AS INTEGER) AS ordered_on,
    CAST(CAST(500 + (c // 64) % 49500 AS DECIMAL(12, 0)) * 0.01 AS DECIMAL(12, 2)) AS amount,
    CASE
        WHEN s < 6 THEN 'cancelled' WHEN s < 11 THEN 'returned'
        WHEN s < 30 THEN 'placed' ELSE 'shipped'
    END AS order_status,
    CASE WHEN (c // 8192) % 10 < 6 THEN 'web' WHEN (c // 8192) % 10 < 9 THEN 'store'
        ELSE 'phone' END AS sales_channel,
    s >= 6 AND (a // 65536) % 20 <> 0 AS is_paid,
    s >= 6 AND s < 11 AS was_returned
FROM (
    SELECT i, a, b, c, (b // 8192) % 100 AS s
    FROM (
        SELECT
            i,
            (i * 2654435761) % 4294967296 AS a,
            (i * 2246822519) % 4294967291 AS b,
            (i * 3266489917) % 4294967279 AS c
        FROM range(1, $orders + 1) AS t(i)
    )
)
ORDER BY order_id
"""

_ANCHOR_BLOCK = re.compile(r"^anchor:\n(?:  .*\n)*", re.MULTILINE)

# Each anchor with its own statement, written for this file alone; the catalog's definition of
# the metric must give the same number, or the service refuses to start.
_ANCHOR_SQL = {
    "__REVENUE_ANCHOR__": """
        SELECT sum(amount) FROM orders
        WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
          AND order_status IS DISTINCT FROM 'cancelled'
    """,
    "__ORDER_COUNT_ANCHOR__": """
        SELECT count(order_id) FROM orders
        WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2025-01-01'
          AND order_status IS DISTINCT FROM 'cancelled'
    """,
}


def write_example(target: Path, *, orders: int = 20_000) -> None:
    """Write the example catalog, database and settings file under ``target``.

    Files the example owns (``catalog/*.md`` of the templates, ``data/example.duckdb``,
    ``base.yaml``, ``schemas/*.schema.json``) are replaced; nothing else under ``target`` is
    touched.

    Args:
        target: the directory to write into; created if missing.
        orders: how many rows of ``orders``; ``customers`` gets one row per 20 of them.

    Raises:
        ValueError: ``orders`` is below 1.
        OSError: a file cannot be written.
    """
    if orders < 1:
        raise ValueError("orders must be at least 1")
    database = target / DATABASE
    database.parent.mkdir(parents=True, exist_ok=True)
    for stale in (database, database.with_name(database.name + ".wal")):
        stale.unlink(missing_ok=True)
    with duckdb.connect(str(database)) as connection:
        generate_data(connection, orders)
        anchors = {key: anchor_text(connection, sql) for key, sql in _ANCHOR_SQL.items()}
    schemas = write_schema_copies(target)
    catalog_line = modeline_for(schemas["catalog"], target / CATALOG)
    _write_catalog(target / CATALOG, anchors, catalog_line)
    settings = modeline_for(schemas["settings"], target) + "\n" + SETTINGS_TEXT
    (target / SETTINGS).write_bytes(settings.encode("utf-8"))


def generate_data(connection: duckdb.DuckDBPyConnection, orders: int) -> None:
    """Create and fill ``customers`` and ``orders`` in ``connection``."""
    sizes = {"customers": max(1, orders // 20), "orders": orders}
    connection.execute(_CUSTOMERS_SQL, {"customers": sizes["customers"]})
    connection.execute(_ORDERS_SQL, sizes)


def anchor_text(connection: duckdb.DuckDBPyConnection, sql: str) -> str | None:
    """The single value ``sql`` returns as exact decimal text (``1234567.89``), or None.

    None means the range holds no qualifying row (a very small ``orders``): the metric would
    answer with no row at all, so the catalog carries no anchor for it.
    """
    row = connection.execute(sql).fetchone()
    value = None if row is None else row[0]
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return str(value)
    return None


def _write_catalog(directory: Path, anchors: dict[str, str | None], modeline: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    templates = resources.files(TEMPLATE_PACKAGE).joinpath(TEMPLATE_DIR)
    for template in sorted(templates.iterdir(), key=lambda t: t.name):
        if not template.name.endswith(".md"):
            continue
        text = template.read_text(encoding="utf-8")
        for placeholder, value in anchors.items():
            if placeholder in text:
                text = (
                    _ANCHOR_BLOCK.sub("", text)
                    if value is None
                    else text.replace(placeholder, value)
                )
        text = with_modeline(text, modeline)
        (directory / template.name).write_bytes(text.encode("utf-8"))
