"""One settings file: strict YAML to plain values, every problem named by file and line.

PyYAML composes a document recursively, so nesting is bounded on the event stream before
anything is composed. Anchors and aliases are refused (an alias can make a document loop or
multiply); a key written twice in one mapping is refused (YAML would keep the last one
silently); a lone surrogate escape such as ``"\\ud800"`` is refused (it is not text).
"""

from pathlib import Path

import yaml
from returns.result import Failure, Result, Success

from sutura.boundary.settings.error import SettingsError
from sutura.boundary.settings.layers import Layer
from sutura.core.nouns.setting_keys import child_key
from sutura.core.text.escape import has_lone_surrogate

MAX_DEPTH = 16


def read_settings_file(path: Path) -> Result[Layer | None, SettingsError]:
    """The layer written in ``path`` with the line of each key, or None when it is empty.

    Args:
        path: the settings file (``base.yaml`` or ``<environment>.yaml``).

    Returns:
        The plain values, or the first problem, naming the file and, where there is one, the
        line and key.
    """
    origin = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        problem = f"cannot be read ({type(err).__name__})"
        return Failure(SettingsError(origin=origin, key="", problem=problem))
    try:
        return _document(origin, text)
    except yaml.YAMLError as err:
        line = _error_line(text, err)
        return Failure(SettingsError(origin=origin, line=line, key="", problem="not valid YAML"))


def _document(origin: str, text: str) -> Result[Layer | None, SettingsError]:
    refused = _event_problem(origin, text)
    if refused is not None:
        return Failure(refused)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return Success(None)
        if not isinstance(node, yaml.MappingNode):
            problem = "expected a mapping of sections"
            return Failure(SettingsError(origin=origin, line=1, key="", problem=problem))
        lines: dict[str, int] = {}
        problem_at = _node_problem(origin, node, "", lines)
        if problem_at is not None:
            return Failure(problem_at)
        sections: dict[str, object] = loader.construct_document(node)
    finally:
        loader.dispose()
    return Success(Layer(name=origin, values=sections, lines=lines))


def _event_problem(origin: str, text: str) -> SettingsError | None:
    """Nesting past the bound, an anchor or an alias, found without composing anything."""
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
        if depth > MAX_DEPTH:
            problem = f"nests deeper than {MAX_DEPTH} levels"
        elif isinstance(event, yaml.AliasEvent) or (
            isinstance(event, yaml.NodeEvent) and event.anchor is not None
        ):
            problem = "YAML anchors and aliases are not allowed; write each value out"
        else:
            continue
        line = 0 if event.start_mark is None else event.start_mark.line + 1
        return SettingsError(origin=origin, line=line, key="", problem=problem)
    return None


def _node_problem(
    origin: str, node: yaml.Node, path: str, lines: dict[str, int]
) -> SettingsError | None:
    """The first key written twice or lone surrogate under ``node`` (depth is bounded); the
    line of every key on the way goes to ``lines``."""
    if isinstance(node, yaml.ScalarNode):
        if has_lone_surrogate(str(node.value)):
            return _at(origin, node, path, "holds a lone surrogate escape, which is not text")
        return None
    if isinstance(node, yaml.SequenceNode):
        children = [(f"{path}[{i}]", item) for i, item in enumerate(node.value)]
    elif isinstance(node, yaml.MappingNode):
        entries = _entries(origin, node, path, lines)
        if isinstance(entries, SettingsError):
            return entries
        children = entries
    else:
        return None
    for child_path, child in children:
        found = _node_problem(origin, child, child_path, lines)
        if found is not None:
            return found
    return None


def _entries(
    origin: str, node: yaml.MappingNode, path: str, lines: dict[str, int]
) -> list[tuple[str, yaml.Node]] | SettingsError:
    """(key path, value node) of each entry, or the second writing of a key."""
    seen: set[str] = set()
    entries: list[tuple[str, yaml.Node]] = []
    for key_node, value_node in node.value:
        key = str(key_node.value) if isinstance(key_node, yaml.ScalarNode) else "?"
        key_path = child_key(path, key)
        if has_lone_surrogate(key):
            return _at(origin, key_node, path, "a key holds a lone surrogate escape")
        if key in seen:
            return _at(origin, key_node, key_path, "this key is written twice in one mapping")
        seen.add(key)
        lines[key_path] = key_node.start_mark.line + 1
        entries.append((key_path, value_node))
    return entries


def _at(origin: str, node: yaml.Node, key: str, problem: str) -> SettingsError:
    return SettingsError(origin=origin, line=node.start_mark.line + 1, key=key, problem=problem)


def _error_line(text: str, err: yaml.YAMLError) -> int:
    mark = getattr(err, "problem_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    position = getattr(err, "position", None)  # a reader error: a character YAML refuses
    return text.count("\n", 0, position) + 1 if isinstance(position, int) else 0
