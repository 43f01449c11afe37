"""Draft catalog documents from the tables a source reports: what ``sutura init`` writes.

One model per table with every column and its type (as the source spells it, so the model
check agrees), the primary key where the source declares a single-column one, one relationship
per single-column foreign key onto the target's primary key, and one ``count`` metric — a draft
to review — per model with a date or timestamp column. Every name the source gave is untrusted
text: it is written as a quoted YAML scalar (or plain when it cannot be read as anything else),
and a name the catalog would refuse is left out with a note saying why, never forged.

>>> orders = FoundTable(table=("orders",), columns=(("id", "INTEGER"), ("placed", "DATE")),
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
from typing import Final

from sutura.core.catalog.checks.source_schema import type_name
from sutura.core.catalog.error import has_unsafe_characters, quoted
from sutura.core.definitions.model import TablePath, table_label
from sutura.core.nouns.dialect import Dialect, traits_of
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.grain import GRAIN_ORDER
from sutura.core.text.escape import is_escaped

DRAFT_MARK: Final = (
    "# DRAFT written by sutura init: review the measure, grains and audience, then delete this line"
)
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_PLAIN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Words other YAML readers (YAML 1.1) would take for booleans or null.
_YAML_WORDS: Final = frozenset(["y", "yes", "n", "no", "true", "false", "on", "off", "null"])
_TIME_FAMILIES: Final = ("date", "timestamp", "timestamptz")
# Internal type names (PostgreSQL's); a model reads better with the SQL ones (same family).
_SQL_SPELLING: Final = {
    "int2": "smallint",
    "int4": "integer",
    "int8": "bigint",
    "float4": "real",
    "float8": "double precision",
    "bool": "boolean",
}


class FoundTable(Frozen, frozen=True):
    """A table as its source reports it: how a question names it, its columns, its key."""

    table: TablePath
    columns: tuple[tuple[str, str], ...]
    primary_key: tuple[str, ...] = ()


class FoundForeignKey(Frozen, frozen=True):
    """A foreign key: origin columns of one table referencing target columns of another."""

    name: str
    origin_table: TablePath
    origin_columns: tuple[str, ...]
    target_table: TablePath
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
    r"""``text`` as a YAML scalar that reads back as exactly ``text``.

    >>> scalar("orders"), scalar("DECIMAL(12,2)"), scalar("yes"), scalar('a"b')
    ('orders', '"DECIMAL(12,2)"', '"yes"', '"a\\"b"')
    >>> print(scalar("n\x85ew\u2028\x7f"))
    "n\u0085ew\u2028\u007f"
    """
    if _PLAIN.fullmatch(text) and text.casefold() not in _YAML_WORDS:
        return text
    # JSON escapes the C0 controls, the quote and the backslash; every other character of the
    # escape set (a line break YAML folds, such as NEL or U+2028, one it refuses raw, such as
    # DEL, or an invisible one) is written as YAML's own \u or \U escape.
    return "".join(_yaml_escaped(ch) for ch in json.dumps(text, ensure_ascii=False))


def _yaml_escaped(ch: str) -> str:
    if ch == "\\" or not is_escaped(ch):
        return ch
    point = ord(ch)
    return f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"


def model_name(table: str, taken: set[str]) -> str:
    """A valid, unused model name for ``table`` (one name: a dot is part of it): its own name
    when valid, else a spelling of it.

    >>> model_name("orders", set()), model_name("Order Lines", set()), model_name("2024", set())
    ('orders', 'order_lines', '_2024')
    >>> model_name("main.victim", set()), model_name("..", set()), model_name("orders", {"orders"})
    ('main_victim', 'table', 'orders_2')
    """
    base = table if _NAME.fullmatch(table) else re.sub(r"[^a-z0-9_]+", "_", table.casefold())
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
    names: dict[TablePath, str] = {}
    keys: dict[TablePath, str] = {}
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
    label = quoted(table_label(table.table))
    if not all(table.table) or any(has_unsafe_characters(part) for part in table.table):
        notes.append(f"table {label}: its name has control or invisible characters")
        return None
    columns = [(c, t) for c, t in table.columns if c and not has_unsafe_characters(c)]
    if len(columns) < len(table.columns):
        left = len(table.columns) - len(columns)
        notes.append(f"table {label}: {left} column(s) with unusable names left out")
    if not columns:
        notes.append(f"table {label}: no usable column, so no model")
        return None
    own = table.table[-1]
    name = model_name(own, taken)
    if name != own:
        notes.append(f"model {name}: named for the table {label}")
    key = table.primary_key[0] if len(table.primary_key) == 1 else None
    if len(table.primary_key) > 1:
        notes.append(f"model {name}: the primary key has several columns; none is declared")
    lines = [
        "kind: model",
        f"name: {scalar(name)}",
        f"source: {scalar(source)}",
        f"table: {_table_yaml(table.table)}",
        *([f"primary_key: {scalar(key)}"] if key is not None else []),
        "columns:",
    ]
    for column, spelled in columns:
        spelled = _spelling(spelled, dialect)
        lines += [f"  - name: {scalar(column)}", f"    type: {scalar(spelled)}"]
    times = [c for c, t in columns if type_name(t, dialect).family in _TIME_FAMILIES]
    body = (
        f"One row per row of the table {quoted(table_label(table.table))}."
        " (Drafted by sutura init: describe it.)"
    )
    text = "\n".join(lines) + "\n---\n" + body + "\n"
    return name, text, key, times[0] if times else None


def _table_yaml(path: TablePath) -> str:
    """``table:``'s value: one name as a scalar, a path as a flow list of scalars.

    >>> _table_yaml(("main.victim",)), _table_yaml(("sales", "orders"))
    ('"main.victim"', '[sales, orders]')
    """
    if len(path) == 1:
        return scalar(path[0])
    return "[" + ", ".join(scalar(part) for part in path) + "]"


def _metric(name: str, model: str, counted: str, time_column: str) -> str:
    grains = ", ".join(g.value for g in GRAIN_ORDER)
    lines = [
        DRAFT_MARK,
        "kind: metric",
        f"name: {scalar(name)}",
        f"model: {scalar(model)}",
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
    names: dict[TablePath, str],
    keys: dict[TablePath, str],
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
            f"name: {scalar(name)}",
            f"origin_model: {scalar(origin)}",
            f"target_model: {scalar(target)}",
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
    """A column type as a draft writes it: an internal name as SQL spells it."""
    if traits_of(dialect).internal_type_names:
        return _SQL_SPELLING.get(spelled, spelled)
    return spelled
