"""Settings documents for the MCP tests: config directories with a ``base.yaml``, as operators
write them, pointing at the session's example (or at a hostile catalog and table)."""

import datetime
from pathlib import Path

import duckdb

from sutura.core.text.escape import has_lone_surrogate
from sutura.core.text.untrusted import CELLS, PROSE

HOSTILE_FIRST_DAY = datetime.date(2024, 1, 1)
HOSTILE_QUESTION: dict[str, object] = {
    "metrics": ["units"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["label"],
}


def settings_document(target: Path, example: Path, *, prose: str | None) -> Path:
    """A config dir whose ``base.yaml`` reads ``example``'s catalog and data, with ``prose``.

    ``prose`` is written as ``prompt.catalog_prose``; ``None`` leaves the key out (the default).
    """
    target.mkdir(parents=True, exist_ok=True)
    lines = [
        "catalog:",
        f"  dir: {example / 'catalog'}",
        "  version: example-1",
        "security:",
        "  identity: single-user",
        "  single_user_because: one user runs the tests",
        "sources:",  # last, so a test may append a source to it
        "  main:",
        "    kind: duckdb",
        f"    path: {example / 'data' / 'example.duckdb'}",
    ]
    if prose is not None:
        lines += ["prompt:", f"  catalog_prose: {prose}"]
    (target / "base.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def carried_cells() -> list[str]:
    """Every corpus cell a data system can hold (lone surrogates are not UTF-8, so none can)."""
    return [case.value for case in CELLS if not has_lone_surrogate(case.value)]


def carried_prose() -> str:
    """The prose corpus as one description: every case a catalog file can hold, one per line."""
    values = [case.value for case in PROSE if not has_lone_surrogate(case.value)]
    return "\n".join(value.replace("\r\n", "\n") for value in values)


_MODEL = """---
kind: model
name: hostile
source: main
table: hostile_rows
columns: [day, label, units]
---
Rows whose labels are every hostile cell of the corpus.
"""

_METRIC = """---
kind: metric
name: units
model: hostile
measure:
  simple:
    aggregate: sum
    column: units
time_column: day
grains: [day, year]
dimensions:
  - name: label
    column: label
    description: Hostile labels, one per corpus case.
audience: open
---
"""


_KNOWLEDGE = {
    "not_defined.md": "---\nkind: not_defined\nphrase: margin\nsynonyms: [profit]\n---\n",
    "glossary.md": "---\nkind: glossary\nterm: units sold\nmeans: {metric: units}\n---\n",
    "caveat.md": "---\nkind: caveat\nname: late_units\nabout: [{metric: units}]\n---\n",
    "example.md": (
        "---\nkind: example\nname: units_by_label\nasked: ['How many units per label?']\n"
        "question:\n  metrics: [units]\n  grain: year\n"
        "  range: {start: 2024-01-01, end: 2025-01-01}\n  dimensions: [label]\n---\n"
    ),
}
KNOWLEDGE_ORDER = ("not_defined.md", "glossary.md", "caveat.md", "example.md")
"""The hostile catalog's knowledge, in the order its bodies are shown (around the metric's)."""


def hostile_config(target: Path, *, physical_schema: bool = False) -> Path:
    """A config dir whose one table groups into every corpus cell, under hostile prose: the
    metric's, the model's and every knowledge document's body is the whole prose corpus."""
    (target / "catalog").mkdir(parents=True, exist_ok=True)
    (target / "data").mkdir(exist_ok=True)
    model = _MODEL.replace("Rows whose labels are every hostile cell of the corpus.\n", "")
    (target / "catalog" / "hostile.md").write_bytes((model + carried_prose()).encode("utf-8"))
    metric = _METRIC + carried_prose() + "\n"
    (target / "catalog" / "units.md").write_bytes(metric.encode("utf-8"))
    for name, front in _KNOWLEDGE.items():
        (target / "catalog" / name).write_bytes((front + carried_prose()).encode("utf-8"))
    with duckdb.connect(str(target / "data" / "hostile.duckdb")) as connection:
        connection.execute("CREATE TABLE hostile_rows (day DATE, label VARCHAR, units INTEGER)")
        rows = [(HOSTILE_FIRST_DAY, cell, i + 1) for i, cell in enumerate(carried_cells())]
        connection.executemany("INSERT INTO hostile_rows VALUES (?, ?, ?)", rows)
    settings = "catalog:\n  dir: catalog\n  version: hostile-1\n"
    settings += "sources:\n  main:\n    kind: duckdb\n    path: data/hostile.duckdb\n"
    settings += "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    if physical_schema:
        settings += "prompt:\n  physical_schema: listed\n"
    (target / "base.yaml").write_text(settings, encoding="utf-8")
    return target
