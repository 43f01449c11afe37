"""What a layer may write, read off the settings types: known keys, single values, vocabularies.

Each layer is held to the schema on its own, so a problem names the file or the variable that
wrote it. A source's keys are those of its kind: the kind the layer writes, else the kind the
layers below it wrote.
"""

from collections.abc import Iterator, Mapping
from enum import Enum

import msgspec.inspect as mi

from sutura.boundary.settings.error import SettingsError
from sutura.boundary.settings.layers import Layer
from sutura.core.nouns.setting_keys import child_key, key_parts
from sutura.core.settings import Settings

_SETTINGS = mi.type_info(Settings)


def layer_key_errors(layer: Layer, below: Mapping[str, object]) -> list[SettingsError]:
    """Every key ``layer`` writes that the settings do not have, or that goes under a value.

    Args:
        layer: one layer.
        below: the layers under it, merged (the kind of each source so far is read from it).

    Returns:
        One error per such key, naming the layer's file or the variable.
    """
    return [layer.error(key, problem) for key, problem in _walk(layer.values, below, _SETTINGS, "")]


def allowed_values(key: str) -> list[str] | None:
    """The closed vocabulary of the setting at ``key``, or None when it has none.

    >>> allowed_values("sources.main.kind"), allowed_values("prompt.catalog_prose")
    (['duckdb', 'postgres', 'spark'], ['quoted', 'omitted'])
    >>> allowed_values("security.inbound.algorithms[1]")[:2]
    ['RS256', 'RS384']
    """
    info: mi.Type = _SETTINGS
    for part in key_parts(key):
        part, _, index = part.partition("[")  # algorithms[0]: an item of a list
        structs = _structs(info)
        if isinstance(info, mi.DictType):
            info = info.value_type
        elif structs and part == structs[0].tag_field:
            return [str(s.tag) for s in structs]
        elif part in (fields := _fields(structs)):
            info = fields[part]
        else:
            return None
        if index:
            info = _item(info)
    return _vocabulary(info)


def _item(info: mi.Type) -> mi.Type:
    """The type of a list's items (of the list in an optional list)."""
    if isinstance(info, mi.ListType):
        return info.item_type
    if isinstance(info, mi.UnionType):
        lists = [t for t in info.types if isinstance(t, mi.ListType)]
        return lists[0].item_type if lists else info
    return info


def _vocabulary(info: mi.Type) -> list[str] | None:
    if isinstance(info, mi.EnumType) and issubclass(info.cls, Enum):
        return [str(member.value) for member in info.cls]
    if isinstance(info, mi.UnionType):
        inner = [v for t in info.types if (v := _vocabulary(t)) is not None]
        return inner[0] if len(inner) == 1 else None
    return None


def _walk(value: object, below: object, info: mi.Type, path: str) -> Iterator[tuple[str, str]]:
    if not isinstance(value, dict):
        return  # a wrong type is the validation's to name
    if isinstance(info, mi.DictType):
        for key, child in value.items():
            yield from _walk(child, _child(below, key), info.value_type, _join(path, key))
        return
    structs = _structs(info)
    if not structs:
        for key in value:
            yield _join(path, str(key)), f"no key goes under {path}, which holds a single value"
        return
    chosen = _of_kind(structs, value, below)
    fields = _fields(chosen)
    for key, child in value.items():
        key_path = _join(path, str(key))
        if key == structs[0].tag_field:
            continue
        if key not in fields:
            yield key_path, _unknown(chosen, structs)
        elif key_path == "environment":  # a layer that set it would outrank the checks for it
            yield key_path, "is chosen by SUTURA_ENVIRONMENT alone, not by a layer"
        else:
            yield from _walk(child, _child(below, key), fields[key], key_path)


def _structs(info: mi.Type) -> list[mi.StructType]:
    if isinstance(info, mi.StructType):
        return [info]
    if isinstance(info, mi.UnionType):
        return [t for t in info.types if isinstance(t, mi.StructType)]
    return []


def _of_kind(
    structs: list[mi.StructType], value: Mapping[object, object], below: object
) -> list[mi.StructType]:
    """The struct of the kind written here or below; all of them when no known kind is."""
    tag_field = structs[0].tag_field
    if tag_field is None:
        return structs
    kind = value.get(tag_field)
    if kind is None and isinstance(below, dict):
        kind = below.get(tag_field)
    return [s for s in structs if s.tag == kind] or structs


def _fields(structs: list[mi.StructType]) -> dict[str, mi.Type]:
    return {f.encode_name: f.type for s in structs for f in s.fields}


def _unknown(chosen: list[mi.StructType], structs: list[mi.StructType]) -> str:
    if len(chosen) == 1 and len(structs) > 1:
        return f"unknown key for a {chosen[0].tag} source"
    return "unknown key"


def _child(below: object, key: object) -> object:
    return below.get(key) if isinstance(below, dict) else None


def _join(path: str, key: object) -> str:
    return child_key(path, str(key))
