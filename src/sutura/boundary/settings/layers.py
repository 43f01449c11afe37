"""The settings layers and how they merge: later layers win, key by key.

A source is the exception: when a layer sets a source's ``kind`` to another kind than the
layers below it, the source is replaced by that layer's keys alone, since the old kind's keys
mean nothing to the new one. So ``SUTURA__SOURCES__MAIN__KIND=postgres`` switches a DuckDB
source of ``base.yaml`` to a PostgreSQL one (with the PostgreSQL defaults).
"""

from collections.abc import Mapping, Sequence

import msgspec

from sutura.boundary.settings.error import SettingsError
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.setting_keys import key_parts, key_path, parent_key
from sutura.core.text.escape import has_lone_surrogate

ENV_PREFIX = "SUTURA__"
ENVIRONMENT = "environment"

Values = dict[str, object]


class Layer(Frozen, frozen=True):
    """One layer: a file (with the line of each key), or the process environment (each key
    named by its variable)."""

    name: str
    values: Values
    lines: dict[str, int] = msgspec.field(default_factory=dict)
    variables: dict[str, str] = msgspec.field(default_factory=dict)

    def error(self, key: str, problem: str, *, written: str | None = None) -> SettingsError:
        """A problem at ``key``, named by where this layer wrote ``written`` (``key`` itself)."""
        written = key if written is None else written
        line = self.lines.get(_nearest(written, self.lines), 0)
        return SettingsError(origin=self.origin(written), line=line, key=key, problem=problem)

    def origin(self, key: str) -> str:
        """Who wrote ``key`` (or the keys under it): the file, or the environment variables."""
        if not self.variables:
            return self.name
        exact = self.variables.get(key)
        if exact is not None:
            return exact
        under = sorted(name for k, name in self.variables.items() if k.startswith(f"{key}."))
        return ", ".join(under) or self.name


def _nearest(key: str, lines: Mapping[str, int]) -> str:
    while key and key not in lines:
        key = parent_key(key)
    return key


def environment_layer(environ: Mapping[str, str]) -> tuple[Layer, list[SettingsError]]:
    """``SUTURA__A__B=v`` as ``{a: {b: v}}``, and every variable that cannot be read so."""
    values: Values = {}
    variables: dict[str, str] = {}
    errors: list[SettingsError] = []
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        parts = name[len(ENV_PREFIX) :].lower().split("__")
        key = key_path(*parts)
        problem = _variable_problem(parts, environ[name], values, variables)
        if problem is None:
            _put(values, parts, environ[name])
            variables[key] = name
        else:
            errors.append(SettingsError(origin=name, key=key, problem=problem))
    return Layer(name=ENVIRONMENT, values=values, variables=variables), errors


def _variable_problem(
    parts: list[str], value: str, values: Values, variables: Mapping[str, str]
) -> str | None:
    if not all(parts):
        return "each part between double underscores must name a key"
    if has_lone_surrogate(value):  # bytes that are not UTF-8 arrive as lone surrogates
        return "the value is not valid UTF-8"
    node: object = values
    for depth, part in enumerate(parts):
        if node is None:
            return None
        if not isinstance(node, dict):
            above = key_path(*parts[:depth])
            return f"no key goes under {above}, which {variables[above]} sets to a single value"
        node = node.get(part)
    if node is None:
        return None
    if isinstance(node, dict):
        return "other variables set keys under this key, which cannot also be a single value"
    return f"{variables[key_path(*parts)]} sets this key too"


def _put(values: Values, parts: list[str], value: str) -> None:
    node = values
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):  # absent: _variable_problem let only mappings through
            child = node[part] = {}
        node = child
    node[parts[-1]] = value


def merge(below: Mapping[str, object], top: Mapping[str, object]) -> Values:
    """``top`` over ``below``: key by key, but a source whose kind ``top`` switches is replaced."""
    merged = _deep_merge(below, top)
    switched = _switched_sources(below, top)
    if switched:
        sources = dict(sources_of(merged))
        sources.update({alias: sources_of(top)[alias] for alias in switched})
        merged["sources"] = sources
    return merged


def _switched_sources(below: Mapping[str, object], top: Mapping[str, object]) -> list[str]:
    """The aliases whose ``kind`` ``top`` sets to another kind than ``below`` has."""
    switched: list[str] = []
    for alias in sources_of(top):
        kind = _kind_of(top, alias)
        if kind is not None and _kind_of(below, alias) not in (None, kind):
            switched.append(alias)
    return switched


def sources_of(values: Mapping[str, object]) -> Mapping[str, object]:
    """The ``sources`` mapping of a layer (empty when it has none, or when it is not a mapping)."""
    sources = values.get("sources")
    return sources if isinstance(sources, dict) else {}


def _kind_of(values: Mapping[str, object], alias: str) -> object:
    """The ``kind`` a layer writes for the source ``alias``, or None."""
    source = sources_of(values).get(alias)
    return source.get("kind") if isinstance(source, dict) else None


def _deep_merge(below: Mapping[str, object], top: Mapping[str, object]) -> Values:
    merged = dict(below)
    for key, value in top.items():
        under = merged.get(key)
        if isinstance(under, dict) and isinstance(value, dict):
            merged[key] = _deep_merge(under, value)
        else:
            merged[key] = value
    return merged


def error_at(key: str, problem: str, layers: Sequence[Layer]) -> SettingsError:
    """A problem at ``key``, named by the layer that last wrote it, or the nearest key above it.

    Layers below the one that last switched a source's kind wrote nothing that is kept.
    """
    parts = key_parts(key)
    kept = layers[_first_kept(parts, layers) :]
    for depth in range(len(parts), 0, -1):
        for layer in reversed(kept):
            if _writes(layer.values, parts[:depth]):
                return layer.error(key, problem, written=key_path(*parts[:depth]))
    return SettingsError(origin="settings", key=key, problem=problem)


def _first_kept(parts: list[str], layers: Sequence[Layer]) -> int:
    if len(parts) < 2 or parts[0] != "sources":
        return 0
    first, kind = 0, None
    for index, layer in enumerate(layers):
        written = _kind_of(layer.values, parts[1])
        if written is not None:
            if kind is not None and written != kind:
                first = index
            kind = written
    return first


def _writes(values: Mapping[str, object], parts: list[str]) -> bool:
    node: object = values
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True
