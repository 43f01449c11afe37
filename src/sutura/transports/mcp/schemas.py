"""The tools' JSON Schemas, generated from the msgspec types the tools decode and encode.

``msgspec.json.schema`` writes ``{"$ref": "#/$defs/T", "$defs": {...}}`` (or an ``anyOf`` of
refs for a union). An MCP tool schema must be an object schema at its root and should be
small, since every ``tools/list`` carries it into an agent's context. So each generated schema
is made compact by rules, never edited by hand:

- titles, docstrings, defaults and OpenAPI ``discriminator`` hints are dropped (an omitted
  field takes its default); an input schema keeps each field's own description, one short
  sentence that names its default, since a host may truncate or skip the instructions;
- an optional field whose default is ``null`` is written as its non-null schema (omit the field
  rather than send ``null``);
- a definition referenced once is inlined; the rest stay in ``$defs``, lifted to the root.

An *input* schema is then closed: ``additionalProperties: false`` at every object, as the
question's decoder refuses unknown fields at every level. An *output* schema keeps the shape
alone: types, properties, items, union branches and their one-value tags (``outcome``), written
tersely, as every value of a structured half is text unless it says otherwise: a string is
``{}`` and a list of strings ``{"type": "array"}`` (the documented type of each such field and
item is a string), an object below the root is
known by its ``properties`` (its ``"type": "object"`` is implied), a nullable value is
``"type": [T, "null"]``, a list of lists (an answer's rows) is ``{"type": "array"}``, and a
subschema used more than once (a list of strings) is one definition in ``$defs``. (A client
checks a result against its output schema: the MCP SDK's, with jsonschema, spent 4 s on the
cells of 50,000 rows × 10 columns when each cell's type was written, and nothing when only the
rows' list was.) Every field name, and every type that is not a string (integers,
booleans, lists, objects, the ``outcome`` tags) stays, but inside the rows (each a list of
cells, each cell text or null). What it leaves out (closedness, ``required``, vocabularies,
bounds, the rows' cells) is the structured half's own documented contract; it is left
out because ``tools/list`` stays within 6.5 KiB and the budget belongs to the input schema an agent
must fill in exactly. The tests pin every schema byte for
byte (``tests/transports/mcp/snapshots``).
"""

from collections import Counter
from typing import Any, Final

import msgspec

from sutura.core.tool.codec import schema_hook

Schema = dict[str, Any]

_DROPPED: Final = frozenset({"title", "description", "default", "discriminator"})
_NAMED_MAPS: Final = frozenset({"properties", "$defs"})  # keys there are names, not keywords
_REF_PREFIX: Final = "#/$defs/"
_NULL: Final = {"type": "null"}
_STRING: Final = {"type": "string"}
_SHAPE: Final = frozenset({"type", "properties", "items", "anyOf", "$ref", "$defs"})

EMPTY_INPUT: Final[Schema] = {"type": "object", "properties": {}, "additionalProperties": False}
"""The input schema of a tool that takes no arguments."""


def _tidy(node: Any, *, described: bool = False) -> Any:
    """Drop prose keywords (but, when ``described``, each field's own description) and empty
    ``required`` lists; simplify null-defaulted fields."""
    if isinstance(node, list):
        return [_tidy(item, described=described) for item in node]
    if not isinstance(node, dict):
        return node
    tidy: Schema = {}
    for key, value in node.items():
        if key == "properties":
            tidy[key] = {
                name: _field(_non_null(sub), described=described) for name, sub in value.items()
            }
        elif key in _NAMED_MAPS:
            tidy[key] = {name: _tidy(sub, described=described) for name, sub in value.items()}
        elif key not in _DROPPED and not (key == "required" and value == []):
            tidy[key] = _tidy(value, described=described)
    return tidy


def _field(field: Schema, *, described: bool) -> Schema:
    """A field's schema tidied, its own description first when ``described``."""
    tidy: Schema = _tidy(field, described=described)
    description = field.get("description")
    if described and isinstance(description, str):
        return {"description": description, **tidy}
    return tidy


def _non_null(field: Schema) -> Schema:
    """``{"anyOf": [S, {"type": "null"}], "default": null}`` becomes ``S`` (its description
    kept)."""
    choices = field.get("anyOf")
    if field.get("default", ...) is None and choices is not None and _NULL in choices:
        rest = [choice for choice in choices if choice != _NULL]
        kept = {k: v for k, v in field.items() if k == "description"}
        return {**kept, **rest[0]} if len(rest) == 1 else {**kept, "anyOf": rest}
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


def _compact(kind: Any, *, described: bool = False) -> Schema:
    """The generated schema of ``kind``, tidied, with single-use definitions inlined."""
    generated = _tidy(msgspec.json.schema(kind, schema_hook=schema_hook), described=described)
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

    >>> from sutura.core.nouns.question import Last
    >>> schema = input_schema(Last)
    >>> schema["properties"]["unit"]["enum"], schema["additionalProperties"]
    (['day', 'month', 'quarter', 'week', 'year'], False)
    >>> schema["properties"]["count"]["description"]
    'How many units, 1 to 100000.'
    """
    closed: Schema = _shared(_merged(_closed(_compact(kind, described=True))))
    return closed


def _tag(branch: Any) -> tuple[str, list[Any]] | None:
    """The one property of a union branch that is a vocabulary (its tag), and its values."""
    properties = branch.get("properties") if isinstance(branch, dict) else None
    if not isinstance(properties, dict):
        return None
    tags = [(name, sub["enum"]) for name, sub in properties.items() if list(sub) == ["enum"]]
    return tags[0] if len(tags) == 1 else None


def _merged(node: Any) -> Any:
    """Union branches that differ only in their tag's value, as one branch taking any of them
    (``in`` and ``not_in`` filters: the same fields, so one schema checks both exactly)."""
    if isinstance(node, list):
        return [_merged(item) for item in node]
    if not isinstance(node, dict):
        return node
    merged: Schema = {
        key: {name: _merged(sub) for name, sub in value.items()}
        if key in _NAMED_MAPS
        else _merged(value)
        for key, value in node.items()
    }
    branches = merged.get("anyOf")
    if isinstance(branches, list):
        kept: list[Any] = []
        for branch in branches:
            tag = _tag(branch)
            twin = next(
                (k for k in kept if tag and _untagged(k, tag[0]) == _untagged(branch, tag[0])), None
            )
            if twin is None or tag is None:
                kept.append(branch)
            else:
                twin["properties"][tag[0]] = {
                    "enum": [*twin["properties"][tag[0]]["enum"], *tag[1]]
                }
        merged["anyOf"] = kept
    return merged


def _untagged(branch: Any, tag: str) -> Any:
    if not isinstance(branch, dict) or not isinstance(branch.get("properties"), dict):
        return branch
    return {**branch, "properties": {k: v for k, v in branch["properties"].items() if k != tag}}


def output_schema(kind: Any) -> Schema:
    """The shape of a msgspec Struct, or union of tagged Structs, as an output schema.

    >>> from sutura.core.nouns.answer import Outcome
    >>> output_schema(Outcome)["anyOf"][1]["properties"]["outcome"]
    {'enum': ['refusal']}
    """
    shape: Schema = _shape(_compact(kind))
    terse: Schema = _shared(_terse(shape, root=True))
    return terse


_REFERENCE: Final = len('{"$ref":"#/$defs/s0"}')


def _saves(size: int, uses: int) -> bool:
    """Whether ``uses`` references and one definition take fewer bytes than ``uses`` copies."""
    return uses * _REFERENCE + len('"s0":') + size + 1 < uses * size


def _terse(node: Any, *, root: bool = False) -> Any:
    """``node`` with strings as ``{}``, implied object types dropped below the root, and a
    nullable leaf as ``"type": [T, "null"]``."""
    if isinstance(node, list):
        return [_terse(item) for item in node]
    if not isinstance(node, dict):
        return node
    choices = node.get("anyOf")
    if isinstance(choices, list) and len(choices) == 2 and _NULL in choices:
        other = next(choice for choice in choices if choice != _NULL)
        if list(other) == ["type"] and isinstance(other["type"], str):
            rest = {key: _terse(value) for key, value in node.items() if key != "anyOf"}
            return {**rest, "type": [other["type"], "null"]}
    terse: Schema = {
        key: {name: _terse(sub) for name, sub in value.items()}
        if key in _NAMED_MAPS
        else _terse(value)
        for key, value in node.items()
    }
    if not root and terse.get("type") == "object" and "properties" in terse:
        del terse["type"]
    if terse.get("type") == "array" and (terse.get("items") == {} or _is_list(terse.get("items"))):
        del terse["items"]
    return {} if terse == _STRING else terse


def _is_list(node: Any) -> bool:
    """Whether ``node`` is the schema of a list (of anything)."""
    return isinstance(node, dict) and node.get("type") == "array"


def _spelled(node: Any) -> str:
    return msgspec.json.encode(node).decode()


def _uses(node: Any, counts: Counter[str]) -> Counter[str]:
    """How often each subschema (as compact JSON) occurs below ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            for child in value.values() if key in _NAMED_MAPS else [value]:
                if isinstance(child, dict):
                    counts[_spelled(child)] += 1
                _uses(child, counts)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict):
                counts[_spelled(item)] += 1
            _uses(item, counts)
    return counts


def _shared(root: Schema) -> Schema:
    """``root`` with each long subschema used more than once lifted into ``$defs`` (as ``s0``,
    ``s1``, ... in the order of first use, after the definitions it has)."""
    counts = _uses({k: v for k, v in root.items() if k != "$defs"}, Counter())
    lifted = [s for s, n in counts.items() if n > 1 and _saves(len(s), n)]
    if not lifted:
        return root
    names = {spelled: f"s{i}" for i, spelled in enumerate(lifted)}

    def replace(node: Any) -> Any:
        if isinstance(node, list):
            return [replace(item) for item in node]
        if not isinstance(node, dict):
            return node
        name = names.get(_spelled(node))
        if name is not None:
            return {"$ref": f"{_REF_PREFIX}{name}"}
        return {
            key: {n: replace(sub) for n, sub in value.items()}
            if key in _NAMED_MAPS
            else replace(value)
            for key, value in node.items()
        }

    shared: Schema = {key: replace(value) for key, value in root.items() if key != "$defs"}
    defs = {name: msgspec.json.decode(spelled) for spelled, name in names.items()}
    shared["$defs"] = {**root.get("$defs", {}), **defs}
    return shared
