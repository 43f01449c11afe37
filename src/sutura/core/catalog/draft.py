"""Draft catalog documents from the tables a source reports: what ``sutura init`` writes.

One model per table with every column and its type (as the source spells it, so the model
check agrees), the primary key where the source declares a single-column one, one relationship
per single-column foreign key onto the target's primary key, and one ``count`` metric — a draft
to review — per model with a date or timestamp column. Every name the source gave is untrusted
text: it is written as a quoted YAML scalar (or plain when it cannot be read as anything else),
and a name the catalog would refuse is left out with a note saying why, never forged.

>>> orders = FoundTable(table="orders", columns=(("id", "INTEGER"), ("placed", "DATE")),
...     primary_key=("id",))
>>> drafted = draft_catalog("main", [orders], [], schema_modeline=None)
>>> [d.path for d in drafted.documents]
['models/orders.md', 'metrics/orders_count.md']
>>> print(drafted.documents[1].text.split("---")[1].strip().splitlines()[0])
# DRAFT written by sutura init: review the measure, grains and audience, then delete this line
"""

import json
import re
from collections.abc import Iterable, Sequence
from typing import Final, assert_never

from sutura.core.catalog.checks.source_schema import type_name
from sutura.core.catalog.error import has_unsafe_characters, quoted
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.grain import GRAIN_ORDER

DRAFT_MARK: Final = (
    "# DRAFT written by sutura init: review the measure, grains and audience, then delete this line"
)
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_PLAIN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words other YAML readers (YAML 1.1) would take for booleans or null.
_YAML_WORDS: Final = frozenset(["y", "yes", "n", "no", "true", "false", "on", "off", "null"])
_TIME_FAMILIES: Final = ("date", "timestamp", "timestamptz")
# PostgreSQL reports its internal names; a model reads better with the SQL ones (same family).
_POSTGRES_SPELLING: Final = {
    "int2": "smallint",
    "int4": "integer",
    "int8": "bigint",
    "float4": "real",
    "float8": "double precision",
    "bool": "boolean",
}


class FoundTable(Frozen, frozen=True):
    """A table as its source reports it: how a question names it, its columns, its key."""

    table: str
    columns: tuple[tuple[str, str], ...]
    primary_key: tuple[str, ...] = ()


class FoundForeignKey(Frozen, frozen=True):
    """A foreign key: origin columns of one table referencing target columns of another."""

    name: str
    origin_table: str
    origin_columns: tuple[str, ...]
    target_table: str
    target_columns: tuple[str, ...]


class DraftDocument(Frozen, frozen=True):
    """One file to write: its path under the catalog directory and its text."""

    path: str
    text: str


class Draft(Frozen, frozen=True):
    """The documents to write and what the author should review (one sentence each)."""

    documents: tuple[DraftDocument, ...]
    notes: tuple[str, ...]


def scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back as exactly ``text``.

    >>> scalar("orders"), scalar("DECIMAL(12,2)"), scalar("yes"), scalar('a"b')
    ('orders', '"DECIMAL(12,2)"', '"yes"', '"a\\\\"b"')
    """
    if _PLAIN.fullmatch(text) and text.casefold() not in _YAML_WORDS:
        return text
    return json.dumps(text, ensure_ascii=False)


def model_name(table: str, taken: set[str]) -> str:
    """A valid, unused model name for ``table``: its own name when valid, else a spelling of it.

    >>> model_name("orders", set()), model_name("Order Lines", set()), model_name("2024", set())
    ('orders', 'order_lines', '_2024')
    >>> model_name("sales.orders", {"orders"}), model_name("orders", {"orders"})
    ('orders_2', 'orders_2')
    """
    short = table.rsplit(".", 1)[-1]
    base = short if _NAME.fullmatch(short) else re.sub(r"[^a-z0-9_]+", "_", short.casefold())
    base = base.strip("_") or "table"
    if not re.match(r"[A-Za-z_]", base):
        base = f"_{base}"
    base = base[:60]
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def draft_catalog(
    source: str,
    tables: Sequence[FoundTable],
    foreign_keys: Iterable[FoundForeignKey],
    *,
    schema_modeline: str | None,
    dialect: Dialect = Dialect.DUCKDB,
) -> Draft:
    """The documents for ``tables`` read from the source ``source``, and the notes to review."""
    notes: list[str] = []
    documents: list[DraftDocument] = []
    names: dict[str, str] = {}
    keys: dict[str, str] = {}
    taken: set[str] = set()
    metric_names: set[str] = set()
    head = "---\n"
    for table in tables:
        drafted = _model(source, table, taken, notes, dialect)
        if drafted is None:
            continue
        name, text, key, time_column = drafted
        names[table.table] = name
        if key is not None:
            keys[table.table] = key
        documents.append(DraftDocument(path=f"models/{name}.md", text=head + text))
        if time_column is None:
            notes.append(f"model {name}: no date or timestamp column, so no draft metric")
            continue
        metric = model_name(f"{name}_count", metric_names)
        documents.append(
            DraftDocument(
                path=f"metrics/{metric}.md",
                text=head + _metric(metric, name, key or time_column, time_column),
            )
        )
    relationships = _relationships(foreign_keys, names, keys, notes)
    documents.extend(DraftDocument(path=p, text=head + t) for p, t in relationships)
    if schema_modeline is not None:
        documents = [
            DraftDocument(path=d.path, text=with_modeline(d.text, schema_modeline))
            for d in documents
        ]
    return Draft(documents=tuple(documents), notes=tuple(notes))


def with_modeline(text: str, line: str) -> str:
    """``text`` with ``line`` as the last line of its front matter (key lines keep their numbers).

    >>> with_modeline("---\\nkind: model\\n---\\nbody\\n", "# m")
    '---\\nkind: model\\n# m\\n---\\nbody\\n'
    """
    end = text.index("\n---\n", 3) + 1
    return text[:end] + line + "\n" + text[end:]


def _model(
    source: str, table: FoundTable, taken: set[str], notes: list[str], dialect: Dialect
) -> tuple[str, str, str | None, str | None] | None:
    """The model's name, text, primary key and first time column; None when it cannot be one."""
    if not table.table or has_unsafe_characters(table.table):
        notes.append(f"table {quoted(table.table)}: its name has control or invisible characters")
        return None
    columns = [(c, t) for c, t in table.columns if c and not has_unsafe_characters(c)]
    if len(columns) < len(table.columns):
        left = len(table.columns) - len(columns)
        notes.append(f"table {quoted(table.table)}: {left} column(s) with unusable names left out")
    if not columns:
        notes.append(f"table {quoted(table.table)}: no usable column, so no model")
        return None
    name = model_name(table.table, taken)
    if name != table.table:
        notes.append(f"model {name}: named for the table {quoted(table.table)}")
    key = table.primary_key[0] if len(table.primary_key) == 1 else None
    if len(table.primary_key) > 1:
        notes.append(f"model {name}: the primary key has several columns; none is declared")
    lines = [
        "kind: model",
        f"name: {name}",
        f"source: {scalar(source)}",
        f"table: {scalar(table.table)}",
        *([f"primary_key: {scalar(key)}"] if key is not None else []),
        "columns:",
    ]
    for column, spelled in columns:
        spelled = _spelling(spelled, dialect)
        lines += [f"  - name: {scalar(column)}", f"    type: {scalar(spelled)}"]
    times = [c for c, t in columns if type_name(t, dialect).family in _TIME_FAMILIES]
    body = f"One row per row of the table {table.table!r}. (Drafted by sutura init: describe it.)"
    text = "\n".join(lines) + "\n---\n" + body + "\n"
    return name, text, key, times[0] if times else None


def _metric(name: str, model: str, counted: str, time_column: str) -> str:
    grains = ", ".join(g.value for g in GRAIN_ORDER)
    lines = [
        DRAFT_MARK,
        "kind: metric",
        f"name: {name}",
        f"model: {model}",
        "measure:",
        "  simple:",
        "    aggregate: count",
        f"    column: {scalar(counted)}",
        f"time_column: {scalar(time_column)}",
        f"grains: [{grains}]",
        "dimensions: []",
        "audience: open",
    ]
    body = (
        f"DRAFT: how many rows of {model} have a {time_column}, per period. "
        "Say what one row is, add the filters and dimensions it needs, then remove DRAFT."
    )
    return "\n".join(lines) + "\n---\n" + body + "\n"


def _relationships(
    foreign_keys: Iterable[FoundForeignKey],
    names: dict[str, str],
    keys: dict[str, str],
    notes: list[str],
) -> list[tuple[str, str]]:
    drafted: list[tuple[str, str]] = []
    taken: set[str] = set()
    for fk in foreign_keys:
        origin, target = names.get(fk.origin_table), names.get(fk.target_table)
        if origin is None or target is None:
            continue  # a table left out (by --table, or unusable) takes its keys with it
        if len(fk.origin_columns) != 1 or fk.target_columns != (keys.get(fk.target_table),):
            notes.append(
                f"foreign key {quoted(fk.name)}: not one column onto {target}'s primary key;"
                " no relationship drafted"
            )
            continue
        name = model_name(f"{origin}_{target}", taken)
        lines = [
            "kind: relationship",
            f"name: {name}",
            f"origin_model: {origin}",
            f"target_model: {target}",
            "keys:",
            "  - equal:",
            f"      origin: {scalar(fk.origin_columns[0])}",
            f"      target: {scalar(fk.target_columns[0])}",
            "join_type: many_to_one",
        ]
        body = f"From the foreign key {fk.name!r}: each {origin} row has at most one {target}."
        drafted.append((f"relationships/{name}.md", "\n".join(lines) + "\n---\n" + body + "\n"))
    return drafted


def _spelling(spelled: str, dialect: Dialect) -> str:
    """A column type as a draft writes it: PostgreSQL's long spellings shortened."""
    match dialect:
        case Dialect.POSTGRES:
            return _POSTGRES_SPELLING.get(spelled, spelled)
        case Dialect.DUCKDB | Dialect.SPARK:
            return spelled
        case _:
            assert_never(dialect)
