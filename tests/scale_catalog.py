"""A generated catalog at an enterprise's scale, with its DuckDB data: for tests and the bench.

``write_scale_catalog(target, metrics=2000, models=200)`` writes ``base.yaml``, ``catalog/``
and (with ``data=True``) ``data/scale.duckdb``: one shared ``customers`` model and
``models - 1`` fact models (each its own table, joined to ``customers`` by a relationship),
the metrics spread evenly over the fact models (sums and counts, some with required filters,
dimensions from the fact table and through the relationship), one glossary term for every
fifth metric, one caveat per fact model, one worked question per fact model, a few terms not
defined, and — with ``anchors=True`` — an anchor on every metric over one shared range, its
value computed here by plain SQL (so a wrong definition would fail startup).

Every name and description is derived from its number, so the catalog is the same on every
run, and a search for a word of a description finds the metrics that carry it.
"""

import decimal
from pathlib import Path
from typing import Final

import duckdb

DATABASE: Final = Path("data/scale.duckdb")
ROWS_PER_MODEL: Final = 400
REGIONS: Final = ("east", "north", "south", "west")
CHANNELS: Final = ("phone", "store", "web")
TOPICS: Final = ("freight", "marketing", "payroll", "licences", "energy", "rentals", "travel")
_RANGE: Final = ("2024-01-01", "2025-01-01")


def metric_name(index: int) -> str:
    """The name of metric ``index`` (from 0)."""
    return f"{TOPICS[index % len(TOPICS)]}_{'total' if index % 2 == 0 else 'count'}_{index:05d}"


def _fact(model: int) -> str:
    return f"fact_{model:04d}"


def _front(fields: str, body: str) -> str:
    return f"---\n{fields.strip()}\n---\n{body.strip()}\n"


def settings_text(database: Path = DATABASE, source: str | None = None) -> str:
    """``base.yaml``: the catalog, the DuckDB source (or the settings ``source`` of another
    source called ``main``, one ``key: value`` a line), one user (a test's own deployment)."""
    main = f"kind: duckdb\npath: '{database}'" if source is None else source
    indented = "".join(f"    {line}\n" for line in main.splitlines())
    return (
        "catalog:\n  dir: catalog\n  version: scale-1\n"
        f"sources:\n  main:\n{indented}"
        "security:\n  identity: single-user\n"
        "  single_user_because: a generated catalog, served to one test or benchmark\n"
    )


def _customers() -> str:
    return _front(
        """
kind: model
name: customers
source: main
table: customers
primary_key: customer_id
columns:
  - name: customer_id
    type: INTEGER
  - name: customer_region
    type: VARCHAR
""",
        "One row per customer, shared by every fact model.",
    )


def _model(model: int) -> str:
    name = _fact(model)
    return _front(
        f"""
kind: model
name: {name}
source: main
table: {name}
primary_key: id
columns:
  - name: id
    type: INTEGER
  - name: customer_id
    type: INTEGER
  - name: booked_on
    type: DATE
  - name: amount
    type: DECIMAL(12,2)
  - name: channel
    type: VARCHAR
""",
        f"Fact model {model}: one row per booking of ledger {model}.",
    )


def _relationship(model: int) -> str:
    name = _fact(model)
    return _front(
        f"""
kind: relationship
name: {name}_customer
origin_model: {name}
target_model: customers
keys:
  - equal:
      origin: customer_id
      target: customer_id
join_type: many_to_one
""",
        "Each booking has one customer.",
    )


def _filtered(index: int) -> bool:
    return index % 3 == 1


def _metric(index: int, model: int, anchor: str | None) -> str:
    name = metric_name(index)
    fact = _fact(model)
    measure = (
        "  simple:\n    aggregate: sum\n    column: amount"
        if index % 2 == 0
        else "  simple:\n    aggregate: count\n    column: id"
    )
    required = (
        "required_filters:\n  - not_equals:\n      column: channel\n      value: phone\n"
        if _filtered(index)
        else ""
    )
    anchored = (
        f"anchor:\n  range: {{start: {_RANGE[0]}, end: {_RANGE[1]}}}\n  value: {anchor}\n"
        if anchor is not None
        else ""
    )
    topic = TOPICS[index % len(TOPICS)]
    return _front(
        f"""
kind: metric
name: {name}
model: {fact}
measure:
{measure}
time_column: booked_on
grains: [day, week, month, quarter, year]
{required}dimensions:
  - name: channel
    column: channel
    values: [{", ".join(CHANNELS)}]
    description: Where the booking was taken.
  - name: region
    column: customer_region
    via: {fact}_customer
    values: [{", ".join(REGIONS)}]
    description: Where the customer is based.
{anchored}audience: open
""",
        f"The {topic} {'spend' if index % 2 == 0 else 'bookings'} of ledger {model}, "
        f"metric number {index}.",
    )


def _glossary(index: int) -> str:
    return _front(
        f"""
kind: glossary
term: ledger word {index}
synonyms: [alias{index}, nickname{index}]
means:
  metric: {metric_name(index)}
""",
        f"What people call metric {index}.",
    )


def _caveat(model: int, names: list[str]) -> str:
    about = "".join(f"  - metric: {name}\n" for name in names)
    return _front(
        f"kind: caveat\nname: ledger_{model:04d}_is_late\nabout:\n{about}",
        f"Ledger {model} is booked a day late.",
    )


def _example(model: int, name: str) -> str:
    return _front(
        f"""
kind: example
name: example_{model:04d}
asked:
  - What was {name} each month of 2024?
question:
  metrics: [{name}]
  grain: month
  range: {{start: {_RANGE[0]}, end: {_RANGE[1]}}}
""",
        "One row per month.",
    )


def _not_defined(index: int) -> str:
    return _front(
        f"kind: not_defined\nphrase: undefined phrase {index}\nsynonyms: [vague{index}]",
        "Nothing certified answers this.",
    )


_CUSTOMERS_SQL: Final = """
CREATE TABLE customers AS
SELECT CAST(i AS INTEGER) AS customer_id,
       CASE i % 4 WHEN 0 THEN 'east' WHEN 1 THEN 'north' WHEN 2 THEN 'south' ELSE 'west' END
           AS customer_region
FROM range(1, 101) AS t(i)
"""

_FACT_SQL: Final = """
CREATE TABLE {table} AS
SELECT CAST(i AS INTEGER) AS id,
       CAST(1 + (i * {seed}) % 100 AS INTEGER) AS customer_id,
       DATE '2023-07-01' + CAST((i * 7 + {seed}) % 730 AS INTEGER) AS booked_on,
       CAST(CAST(100 + (i * {seed}) % 9900 AS DECIMAL(12, 0)) * 0.01 AS DECIMAL(12, 2)) AS amount,
       CASE (i + {seed}) % 3 WHEN 0 THEN 'phone' WHEN 1 THEN 'store' ELSE 'web' END AS channel
FROM range(1, {rows} + 1) AS t(i)
"""


def _anchor(connection: duckdb.DuckDBPyConnection, index: int, model: int) -> str:
    measure = "sum(amount)" if index % 2 == 0 else "count(id)"
    where = f"booked_on >= DATE '{_RANGE[0]}' AND booked_on < DATE '{_RANGE[1]}'"
    if _filtered(index):
        where += " AND channel IS DISTINCT FROM 'phone'"
    row = connection.execute(f"SELECT {measure} FROM {_fact(model)} WHERE {where}").fetchone()
    value = None if row is None else row[0]
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    return str(value)


def _data(target: Path, facts: int) -> duckdb.DuckDBPyConnection:
    """The DuckDB file: ``customers`` and one table per fact model."""
    database = target / DATABASE
    database.parent.mkdir(parents=True, exist_ok=True)
    database.unlink(missing_ok=True)
    connection = duckdb.connect(str(database))
    connection.execute(_CUSTOMERS_SQL)
    for model in range(facts):
        sql = _FACT_SQL.format(table=_fact(model), seed=model + 7, rows=ROWS_PER_MODEL)
        connection.execute(sql)
    return connection


def write_scale_catalog(
    target: Path, *, metrics: int, models: int, anchors: bool = False, data: bool = False
) -> Path:
    """Write the generated catalog (and, with ``data``, its DuckDB file) under ``target``.

    ``anchors`` needs ``data``: each anchor's value is computed from the data written.
    Returns ``target``.
    """
    if anchors and not data:
        raise ValueError("anchors are computed from the data: pass data=True")
    facts = max(1, models - 1)
    catalog = target / "catalog"
    catalog.mkdir(parents=True, exist_ok=True)
    connection = _data(target, facts) if data else None
    files: dict[str, str] = {"customers.md": _customers()}
    owned: dict[int, list[str]] = {}
    for model in range(facts):
        files[f"{_fact(model)}.md"] = _model(model)
        files[f"{_fact(model)}_customer.md"] = _relationship(model)
    for index in range(metrics):
        model = index % facts
        value = _anchor(connection, index, model) if anchors and connection else None
        files[f"{metric_name(index)}.md"] = _metric(index, model, value)
        owned.setdefault(model, []).append(metric_name(index))
        if index % 5 == 0:
            files[f"glossary_{index:05d}.md"] = _glossary(index)
    for model, names in owned.items():
        files[f"caveat_{model:04d}.md"] = _caveat(model, names[:2])
        files[f"example_{model:04d}.md"] = _example(model, names[0])
    for index in range(3):
        files[f"not_defined_{index}.md"] = _not_defined(index)
    for file_name, text in files.items():
        (catalog / file_name).write_text(text, encoding="utf-8")
    if connection is not None:
        connection.close()
    (target / "base.yaml").write_text(settings_text(), encoding="utf-8")
    return target
