"""The tools' JSON Schemas, generated from the msgspec types the tools decode and encode.

``msgspec.json.schema`` writes ``{"$ref": "#/$defs/T", "$defs": {...}}`` (or an ``anyOf`` of
refs for a union). An MCP tool schema must be an object schema at its root and should be
small, since every ``tools/list`` carries it into an agent's context. So each generated schema
is made compact by rules, never edited by hand:

- titles, descriptions (docstrings), defaults and OpenAPI ``discriminator`` hints are dropped:
  the tool descriptions and the agent prompt say what the fields mean, and the OpenAPI
  document carries every field's description and default (an omitted field takes its default);
- an optional field whose default is ``null`` is written as its non-null schema (omit the field
  rather than send ``null``);
- a definition referenced once is inlined; the rest stay in ``$defs``, lifted to the root.

An *input* schema is then closed: ``additionalProperties: false`` at every object, as the
question's decoder refuses unknown fields at every level. An *output* schema keeps the shape
alone: types, properties, items, union branches and their one-value tags (``outcome``). What
it leaves out (closedness, ``required``, vocabularies, bounds) is the structured half's own
documented contract; it is left out because ``tools/list`` stays under 5 KB and the budget
belongs to the input schema an agent must fill in exactly. The tests pin every schema byte for
byte (``tests/transports/mcp/snapshots``).
"""

from collections import Counter
from typing import Any, Final

import msgspec

from sutura.core.codec import schema_hook

Schema = dict[str, Any]

_DROPPED: Final = frozenset({"title", "description", "default", "discriminator"})
_NAMED_MAPS: Final = frozenset({"properties", "$defs"})  # keys there are names, not keywords
_REF_PREFIX: Final = "#/$defs/"
_NULL: Final = {"type": "null"}
_SHAPE: Final = frozenset({"type", "properties", "items", "anyOf", "$ref", "$defs"})

EMPTY_INPUT: Final[Schema] = {"type": "object", "properties": {}, "additionalProperties": False}
"""The input schema of a tool that takes no arguments."""


def _tidy(node: Any) -> Any:
    """Drop prose keywords and empty ``required`` lists; simplify null-defaulted fields."""
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    if not isinstance(node, dict):
        return node
    tidy: Schema = {}
    for key, value in node.items():
        if key == "properties":
            tidy[key] = {name: _tidy(_non_null(sub)) for name, sub in value.items()}
        elif key in _NAMED_MAPS:
            tidy[key] = {name: _tidy(sub) for name, sub in value.items()}
        elif key not in _DROPPED and not (key == "required" and value == []):
            tidy[key] = _tidy(value)
    return tidy


def _non_null(field: Schema) -> Schema:
    """``{"anyOf": [S, {"type": "null"}], "default": null}`` becomes ``S``."""
    choices = field.get("anyOf")
    if field.get("default", ...) is None and choices is not None and _NULL in choices:
        rest = [choice for choice in choices if choice != _NULL]
        return rest[0] if len(rest) == 1 else {"anyOf": rest}
    return field


def _references(node: Any, counts: Counter[str]) -> Counter[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            counts[ref.removeprefix(_REF_PREFIX)] += 1
        for value in node.values():
            _references(value, counts)
    elif isinstance(node, list):
        for item in node:
            _references(item, counts)
    return counts


def _inline(node: Any, defs: Schema, kept: frozenset[str]) -> Any:
    """``node`` with every reference to a definition outside ``kept`` replaced by its body."""
    if isinstance(node, list):
        return [_inline(item, defs, kept) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.removeprefix(_REF_PREFIX) not in kept:
        siblings = {k: _inline(v, defs, kept) for k, v in node.items() if k != "$ref"}
        return {**_inline(defs[ref.removeprefix(_REF_PREFIX)], defs, kept), **siblings}
    return {key: _inline(value, defs, kept) for key, value in node.items()}


def _compact(kind: Any) -> Schema:
    """The generated schema of ``kind``, tidied, with single-use definitions inlined."""
    generated = _tidy(msgspec.json.schema(kind, schema_hook=schema_hook))
    defs: Schema = generated.pop("$defs", {})
    counts = _references(generated, Counter())
    for body in defs.values():
        _references(body, counts)
    kept = frozenset(name for name, count in counts.items() if count > 1)
    root: Schema = _inline(generated, defs, kept)
    if "type" not in root:  # a union: MCP wants an object schema at the root
        root = {"type": "object", **root}
    if kept:
        root["$defs"] = {name: _inline(defs[name], defs, kept) for name in sorted(kept)}
    return root


def _closed(node: Any) -> Any:
    """Every object schema in ``node`` with ``additionalProperties: false``."""
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    closed = {
        key: {name: _closed(sub) for name, sub in value.items()}
        if key in _NAMED_MAPS
        else _closed(value)
        for key, value in node.items()
    }
    if "properties" in closed:
        closed["additionalProperties"] = False
    return closed


def _shape(node: Any) -> Any:
    """Only the shape keywords of ``node``; a vocabulary (an enum of several) becomes a string."""
    if isinstance(node, list):
        return [_shape(item) for item in node]
    if not isinstance(node, dict):
        return node
    shape: Schema = {}
    for key, value in node.items():
        if key in _NAMED_MAPS:
            shape[key] = {name: _shape(sub) for name, sub in value.items()}
        elif key in _SHAPE:
            shape[key] = _shape(value)
        elif key == "enum":
            shape.update({"enum": value} if len(value) == 1 else {"type": "string"})
    return shape


def input_schema(kind: Any) -> Schema:
    """The closed, compact input schema of a msgspec Struct.

    >>> from sutura.core.question.model import Last
    >>> schema = input_schema(Last)
    >>> schema["properties"]["unit"], schema["additionalProperties"]
    ({'enum': ['day', 'month', 'quarter', 'week', 'year']}, False)
    """
    closed: Schema = _closed(_compact(kind))
    return closed


def output_schema(kind: Any) -> Schema:
    """The shape of a msgspec Struct, or union of tagged Structs, as an output schema.

    >>> from sutura.core.outcome.answer import Outcome
    >>> output_schema(Outcome)["anyOf"][1]["properties"]["outcome"]
    {'enum': ['refusal']}
    """
    shape: Schema = _shape(_compact(kind))
    return shape
