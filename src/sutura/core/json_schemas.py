"""JSON Schemas of what authors write, generated from the msgspec types that decode it.

- **catalog**: a document's front matter, one schema per ``kind`` (from the ``Written*``
  types: which keys exist, how they nest, every leaf text), joined by ``kind``. The closed
  vocabularies, names and cross-document rules inside them are checked by ``sutura check``.
- **settings**: one settings file (``base.yaml``, ``<environment>.yaml``), from
  :class:`~sutura.core.settings.Settings`; ``environment`` is left out (only
  ``SUTURA_ENVIRONMENT`` chooses it). It describes a whole file such as ``base.yaml``: an
  ``<environment>.yaml`` that refines a source of ``base.yaml`` may leave out its required keys.

Editors read them through a ``# yaml-language-server: $schema=…`` modeline.

>>> sorted(catalog_schema()["properties"]["kind"]["enum"])[:3]
['caveat', 'example', 'glossary']
>>> "environment" in settings_schema()["properties"]
False
"""

import copy
import json
from typing import Any, Final

import msgspec

from sutura.core.catalog.document.parse import DocumentKind
from sutura.core.catalog.document.written import (
    WrittenCaveat,
    WrittenDerivedMetric,
    WrittenExample,
    WrittenGlossary,
    WrittenMetric,
    WrittenModel,
    WrittenNotDefined,
    WrittenRelationship,
)
from sutura.core.settings import Settings

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
CATALOG_FILE: Final = "catalog.schema.json"
SETTINGS_FILE: Final = "settings.schema.json"
SCHEMA_NAMES: Final = ("catalog", "settings")

WRITTEN: Final[dict[DocumentKind, type[msgspec.Struct]]] = {
    DocumentKind.MODEL: WrittenModel,
    DocumentKind.RELATIONSHIP: WrittenRelationship,
    DocumentKind.METRIC: WrittenMetric,
    DocumentKind.GLOSSARY: WrittenGlossary,
    DocumentKind.CAVEAT: WrittenCaveat,
    DocumentKind.NOT_DEFINED: WrittenNotDefined,
    DocumentKind.EXAMPLE: WrittenExample,
}
_TITLES: Final = {
    DocumentKind.MODEL: "A model: one table of a source, its columns and primary key",
    DocumentKind.RELATIONSHIP: "A relationship: how one model joins onto another",
    DocumentKind.METRIC: "A metric: a governed measure over a model",
    DocumentKind.GLOSSARY: "A glossary term: the user's word and the metric it means",
    DocumentKind.CAVEAT: "A caveat about metrics",
    DocumentKind.NOT_DEFINED: "A phrase the catalog does not define",
    DocumentKind.EXAMPLE: "A worked question",
}


_WRITTEN_WITH: Final[dict[DocumentKind, tuple[str, type[msgspec.Struct]]]] = {
    DocumentKind.METRIC: ("derived", WrittenDerivedMetric),
}
"""A kind written another way when a key is present: ``kind: metric`` with ``derived``."""
_DERIVED_TITLE: Final = "A derived metric: the ratio, difference, sum or product of two metrics"


def modeline(schema_path: str) -> str:
    """The comment that points the YAML language server at a schema.

    >>> modeline("../schemas/catalog.schema.json")
    '# yaml-language-server: $schema=../schemas/catalog.schema.json'
    """
    return f"# yaml-language-server: $schema={schema_path}"


def catalog_schema() -> dict[str, Any]:
    """The front matter of any catalog document: the schema of its ``kind``."""
    _, components = msgspec.json.schema_components([*WRITTEN.values(), WrittenDerivedMetric])
    defs: dict[str, Any] = {name: _text_leaves(d) for name, d in components.items()}
    for kind, written in WRITTEN.items():
        defs[written.__name__] = _kind_def(components[written.__name__], kind)
    derived = _kind_def(components[WrittenDerivedMetric.__name__], DocumentKind.METRIC)
    derived["title"] = _DERIVED_TITLE
    defs[WrittenDerivedMetric.__name__] = derived
    kinds = [kind.value for kind in WRITTEN]
    return {
        "$schema": DIALECT,
        "title": "sutura catalog document (front matter)",
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": kinds}},
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": kind.value}}, "required": ["kind"]},
                "then": _then(kind),
            }
            for kind in WRITTEN
        ],
        "$defs": defs,
    }


def kind_schema(kind: DocumentKind) -> dict[str, Any]:
    """The front matter of a document of one ``kind``."""
    whole = catalog_schema()
    return {"$schema": DIALECT, **_then(kind), "$defs": whole["$defs"]}


def _then(kind: DocumentKind) -> dict[str, Any]:
    """The schema a document of ``kind`` meets: a metric with ``derived`` is a derived metric."""
    own = {"$ref": f"#/$defs/{WRITTEN[kind].__name__}"}
    written_with = _WRITTEN_WITH.get(kind)
    if written_with is None:
        return own
    key, written = written_with
    return {"if": {"required": [key]}, "then": {"$ref": f"#/$defs/{written.__name__}"}, "else": own}


def _text_leaves(node: Any) -> Any:
    """Every ``string`` leaf also admits what an editor's YAML reads as a number or boolean:
    the catalog reads every scalar as the text written (``1.50``, ``yes``, ``2024-01-01``)."""
    if isinstance(node, dict):
        if node.get("type") == "string":
            return {**node, "type": ["string", "number", "boolean"]}
        return {k: _text_leaves(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_text_leaves(v) for v in node]
    return node


def _bool_leaves(node: Any) -> Any:
    """Every ``boolean`` leaf also admits ``0`` and ``1``, as the settings decoder does (it
    converts leniently, so an environment variable's text reads as its value)."""
    if isinstance(node, dict):
        if node.get("type") == "boolean":
            rest = {k: v for k, v in node.items() if k != "type"}
            return {**rest, "anyOf": [{"type": "boolean"}, {"enum": [0, 1]}]}
        return {k: _bool_leaves(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_bool_leaves(v) for v in node]
    return node


def _kind_def(generated: dict[str, Any], kind: DocumentKind) -> dict[str, Any]:
    definition = copy.deepcopy(generated)
    definition["title"] = _TITLES[kind]
    definition["properties"]["kind"] = {"const": kind.value}
    return definition


def settings_schema() -> dict[str, Any]:
    """One settings file: every section and key, a source's keys those of its kind."""
    schema: dict[str, Any] = msgspec.json.schema(Settings)
    defs = schema["$defs"]
    top = defs.pop("Settings")
    del top["properties"]["environment"]
    defs.pop("Environment", None)
    sources = top["properties"]["sources"]["additionalProperties"]
    sources.pop("discriminator", None)  # OpenAPI's keyword; ``kind`` selects the branch
    return {
        "$schema": DIALECT,
        "title": "sutura settings file (base.yaml, <environment>.yaml)",
        **_bool_leaves({k: v for k, v in top.items() if k != "title"}),
        "$defs": _bool_leaves(defs),
    }


def schema_text(name: str) -> str:
    """The schema ``name`` (``catalog`` or ``settings``) as the JSON file the package ships."""
    schema = catalog_schema() if name == "catalog" else settings_schema()
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
