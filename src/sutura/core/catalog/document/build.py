"""Written documents to validated catalog values, one kind at a time.

A :class:`Checker` stops at the first problem with a :class:`CatalogError` at its key path;
:func:`~sutura.core.catalog.document.parse.parse_document` catches it and returns it as a
value.
"""

import datetime
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import NoReturn, TypeVar

import msgspec

from sutura.core.catalog.document.front_matter import DocumentError, PlainValue, nearest_line
from sutura.core.catalog.document.written import WrittenColumn, WrittenModel, WrittenRelationship
from sutura.core.catalog.error import CatalogError, has_unsafe_characters, quoted, safe_text
from sutura.core.definitions.model import (
    Column,
    Dimension,
    KeyPair,
    Model,
    Relationship,
    TablePath,
)
from sutura.core.nouns.frozen import Frozen

NAME_RULE = "a letter or _, then up to 63 letters, digits or _"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TYPE_WORDS = {"str": "text", "array": "a list", "object": "a mapping", "null": "nothing"}
_MANY_TO_ONE = "many_to_one"
_MOST_TABLE_PARTS = 3

WrittenT = TypeVar("WrittenT", bound=Frozen)
# Keys an author reaches for to describe a whole document: its body is where that goes.
_BODY_KEYS = frozenset({"description", "desc", "summary", "doc", "docs", "documentation"})
_IN_THE_BODY = "a document is described by its body, the text after the closing ---"
EnumT = TypeVar("EnumT", bound=StrEnum)


class Checker:
    """Checks the values of one document, failing at a key path."""

    def __init__(self, file_label: str, lines: Mapping[str, int]) -> None:
        """Check the document ``file_label``, whose key paths sit at ``lines``."""
        self.file_label = file_label
        self.lines = lines

    def fail(self, key: str, problem: str) -> NoReturn:
        """Stop with ``problem`` at ``key``."""
        line = nearest_line(self.lines, key)
        raise DocumentError(CatalogError(file=self.file_label, line=line, key=key, problem=problem))

    def name(self, key: str, value: str) -> str:
        """``value`` if it is a valid name of a model, relationship, metric or dimension."""
        if _NAME.fullmatch(value) is None:
            self.fail(key, f"{quoted(value)} is not a valid name: {NAME_RULE}")
        return value

    def identifier(self, key: str, value: str) -> str:
        """``value`` if it can name a table, column or source: not empty, no control characters."""
        if not value or has_unsafe_characters(value):
            self.fail(key, "expected a non-empty name without control or invisible characters")
        return value

    def table(self, key: str, value: str | list[str]) -> TablePath:
        """``value`` as a table path: one name (a dot is part of it), or a list of one to three
        names, outermost first (schema, table; or catalog, schema, table)."""
        if isinstance(value, str):
            return (self.identifier(key, value),)
        if not 1 <= len(value) <= _MOST_TABLE_PARTS:
            self.fail(
                key,
                "expected a table's name, or a list of [schema, table] or [catalog, schema, table]",
            )
        return tuple(self.identifier(f"{key}[{i}]", part) for i, part in enumerate(value))

    def phrase(self, key: str, value: str) -> str:
        """``value`` if it can be a word a user says: not empty, no control characters."""
        if not value.strip() or has_unsafe_characters(value):
            self.fail(key, "expected words without control or invisible characters")
        return value

    def choice(self, key: str, value: str, vocabulary: type[EnumT]) -> EnumT:
        """``value`` as a member of the closed ``vocabulary`` (looked up by value: iterating
        an enum's members costs more than reading the whole value)."""
        try:
            return vocabulary(value)
        except ValueError:
            self.fail(key, "expected one of " + ", ".join(m.value for m in vocabulary))

    def date(self, key: str, value: str) -> datetime.date:
        """``value`` as an ISO date ``YYYY-MM-DD``."""
        try:
            if _DATE.fullmatch(value) is not None:
                return datetime.date.fromisoformat(value)
        except ValueError:
            pass
        self.fail(key, "expected a date written YYYY-MM-DD")

    def one_of(self, key: str, present: dict[str, bool]) -> str:
        """The single form of a one-of that is present; any other count is an error."""
        chosen = [form for form, here in present.items() if here]
        if len(chosen) != 1:
            found = "none" if not chosen else " and ".join(chosen)
            self.fail(key, f"expected exactly one of {', '.join(present)}; found {found}")
        return chosen[0]

    def unique(self, key: str, values: list[str], what: str) -> None:
        """Fail at the first repeat in ``values`` (``key`` is formatted with its index)."""
        seen: set[str] = set()
        for index, value in enumerate(values):
            if value in seen:
                self.fail(key.format(index), f"{what} {quoted(value)} is listed twice")
            seen.add(value)

    def convert(self, values: dict[str, PlainValue], schema: type[WrittenT]) -> WrittenT:
        """``values`` in the written ``schema``, or the first mismatch at its key path."""
        try:
            return msgspec.convert(values, schema, strict=False)
        except msgspec.ValidationError as error:
            key, problem = explain(str(error))
            self.fail(key, problem)


def explain(message: str) -> tuple[str, str]:
    """A msgspec validation message as (key path, problem) in the catalog's words.

    >>> explain("Object contains unknown field `colour` - at `$.dimensions[0]`")
    ('dimensions[0].colour', 'unknown key')
    >>> explain("Expected `str | null`, got `array` - at `$.primary_key`")
    ('primary_key', 'expected text or nothing, got a list')
    >>> explain("Object contains unknown field `description`")[1]
    'unknown key: a document is described by its body, the text after the closing ---'
    """
    text, marker, where = message.rpartition(" - at `$")
    if not marker:
        text, where = message, "`"
    path = where[:-1].removeprefix(".")
    unknown = "Object contains unknown field `"
    missing = "Object missing required field `"
    for prefix, problem in ((unknown, "unknown key"), (missing, "missing required key")):
        if text.startswith(prefix):
            key = text[len(prefix) : -1]
            if not path and problem == "unknown key" and key in _BODY_KEYS:
                problem = f"{problem}: {_IN_THE_BODY}"
            return (f"{path}.{key}" if path else key), problem
    match = re.fullmatch(r"Expected `([a-z |]+)`, got `([a-z]+)`", text)
    if match is None:
        return path, safe_text(text)
    wanted = " or ".join(_TYPE_WORDS.get(t, t) for t in match.group(1).split(" | "))
    return path, f"expected {wanted}, got {_TYPE_WORDS.get(match.group(2), match.group(2))}"


def build_model(
    check: Checker, written: WrittenModel, body: str, dimensions: tuple[Dimension, ...] = ()
) -> Model:
    """A :class:`Model` from its written document, with its shared ``dimensions`` (built by
    :mod:`~sutura.core.catalog.document.dimension`)."""
    if not written.columns:
        check.fail("columns", "a model needs at least one column")
    columns = tuple(_column(check, f"columns[{i}]", c) for i, c in enumerate(written.columns))
    check.unique("columns[{}]", [c.name for c in columns], "the column")
    return Model(
        name=check.name("name", written.name),
        source=check.identifier("source", written.source),
        table=check.table("table", written.table),
        columns=columns,
        primary_key=_primary_key(check, written.primary_key, {c.name for c in columns}),
        authored_sql=authored_sql(check, written.authored_sql),
        description=body,
        dimensions=dimensions,
    )


def _primary_key(
    check: Checker, written: str | list[str] | None, names: set[str]
) -> str | tuple[str, ...] | None:
    """One column, or several unique together (one listed alone is that column)."""
    if written is None:
        return None
    listed = [written] if isinstance(written, str) else written
    if not listed:
        check.fail("primary_key", "list at least one column, or omit primary_key")
    check.unique("primary_key[{}]", listed, "the column")
    for index, name in enumerate(listed):
        if name not in names:
            key = "primary_key" if isinstance(written, str) else f"primary_key[{index}]"
            check.fail(key, "the primary key must be one of the model's columns")
    return listed[0] if len(listed) == 1 else tuple(listed)


def authored_sql(check: Checker, written: str | None) -> str | None:
    """Hand-written SQL, kept exactly as written (pinned; every source refuses it at startup)."""
    if written is not None and not written.strip():
        check.fail("authored_sql", "expected the SQL text; omit authored_sql to have none")
    return written


def _column(check: Checker, key: str, written: str | WrittenColumn) -> Column:
    if isinstance(written, str):
        return Column(name=check.identifier(key, written))
    name = check.identifier(f"{key}.name", written.name)
    return Column(name=name, type=written.type, description=written.description)


def build_relationship(check: Checker, written: WrittenRelationship, body: str) -> Relationship:
    """A :class:`Relationship` from its written document; only many-to-one joins exist."""
    if written.join_type != _MANY_TO_ONE:
        check.fail("join_type", "expected many_to_one: a join that could duplicate rows is refused")
    if not written.keys:
        check.fail("keys", "a relationship needs at least one key")
    keys = tuple(
        KeyPair(
            origin=check.identifier(f"keys[{i}].equal.origin", k.equal.origin),
            target=check.identifier(f"keys[{i}].equal.target", k.equal.target),
        )
        for i, k in enumerate(written.keys)
    )
    return Relationship(
        name=check.name("name", written.name),
        origin_model=check.name("origin_model", written.origin_model),
        target_model=check.name("target_model", written.target_model),
        keys=keys,
        description=body,
    )
