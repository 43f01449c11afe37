"""Front matter: split a catalog document and read its YAML as plain values with line marks.

Every scalar stays the text the author wrote: YAML's implicit typing never runs, so
``2024-01-01``, ``1.50`` and ``yes`` stay text. A plain ``null``, ``~`` or empty scalar is
``None``. Anchors, aliases, merge keys, tags, duplicate keys and lone surrogates (``"\\ud800"``,
which no UTF-8 text can hold) are refused, naming the line.

>>> text = "---\\nkind: metric\\ngrains: [day, 2024-01-01]\\n---\\nProse.\\n"
>>> front = read_front_matter("m.md", text)
>>> front.unwrap().values
{'kind': 'metric', 'grains': ['day', '2024-01-01']}
>>> front.unwrap().lines["grains[1]"], front.unwrap().body
(3, 'Prose.')
"""

import functools
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn, Protocol

import yaml
from returns.result import Failure, Result, Success

from sutura.core.catalog.error import CatalogError, quoted, safe_text
from sutura.core.nouns.frozen import Frozen
from sutura.core.text.escape import has_lone_surrogate

PlainValue = str | None | list["PlainValue"] | dict[str, "PlainValue"]

_FENCE = "---"
_FIRST_YAML_LINE = 2  # the front matter starts on the file's second line
# An expression nests at most 12 nodes deep, a node being a mapping and often a list: its own
# bound (core/expression/nodes.py) is the one an author meets, this one only stops a document
# from nesting without end.
_MAX_DEPTH = 32
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STR_TAG = "tag:yaml.org,2002:str"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_OTHER_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
_PLAIN = (None, "")  # a plain scalar's style: the pure-Python parser's, libyaml's
_FAST: type[yaml.SafeLoader] | None = getattr(yaml, "CSafeLoader", None)
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
_SURROGATE = "a lone surrogate (an escape from \\ud800 to \\udfff), which is not text"


class FrontMatter(Frozen, frozen=True):
    """A document's front matter as plain values, the line of every key path, and its body."""

    values: dict[str, PlainValue]
    lines: Mapping[str, int]
    body: str


class Lines(Mapping[str, int]):
    """The line of every key path of a front matter that was read without refusal, found when
    first asked: only a problem names a line, and a catalog that loads asks for none (finding
    them as each document was read took a fifth of reading the front matter)."""

    def __init__(self, file_label: str, front: str) -> None:
        """The lines of ``front``, the front matter of ``file_label``."""
        self._file_label = file_label
        self._front = front

    @functools.cached_property
    def _lines(self) -> dict[str, int]:
        return _checked_values(self._file_label, self._front)[1]

    def __getitem__(self, key: str) -> int:
        """The line of the key path ``key``."""
        return self._lines[key]

    def __iter__(self) -> Iterator[str]:
        """Every key path."""
        return iter(self._lines)

    def __len__(self) -> int:
        """How many key paths there are."""
        return len(self._lines)


class KnownFronts(Protocol):
    """Front matters read before, by their exact text: the plain values each read gave.

    :func:`read_front_matter` asks it before reading a front matter's YAML and tells it what a
    read gave; only a read without refusal is told, so a refusal is always found again, naming
    its line. What it hands back is trusted as that read's values."""

    def values(self, front: str) -> dict[str, PlainValue] | None:
        """The values reading ``front`` gave, or None when it was not read before."""
        ...

    def keep(self, front: str, values: dict[str, PlainValue]) -> None:
        """Remember that reading ``front`` gave ``values``."""
        ...


class _Mark(Protocol):
    """A YAML position (the pure-Python and the C parser each have their own class)."""

    @property
    def line(self) -> int:
        """The 0-based line."""
        ...


class DocumentError(Exception):
    """Carries the first problem of one document out of nested checks.

    Raised and caught inside the parsing modules only; ``parse_document`` returns the error
    as a value.
    """

    def __init__(self, error: CatalogError) -> None:
        """Wrap ``error``."""
        super().__init__(error.problem)
        self.error = error


def read_front_matter(
    file_label: str, text: str, known: KnownFronts | None = None
) -> Result[FrontMatter, CatalogError]:
    """Split ``text`` into front matter and body, and read the front matter.

    Args:
        file_label: the file's path relative to the catalog directory, for errors.
        text: the whole file.
        known: front matters read before (their YAML is not read again), told what this
            read gives when it refuses nothing.

    Returns:
        The front matter, or the first problem found in it.
    """
    try:
        front, body = _split(file_label, text)
        _check_line_breaks(file_label, front)
        values = None if known is None else known.values(front)
        if values is not None:
            return Success(FrontMatter(values=values, lines=Lines(file_label, front), body=body))
        try:
            values = _unrefused_values(_composed_in_c(front))
        except _ReadAgainError:
            checked, lines = _checked_values(file_label, front)
            if known is not None:
                known.keep(front, checked)
            return Success(FrontMatter(values=checked, lines=lines, body=body))
    except DocumentError as refused:
        return Failure(refused.error)
    if known is not None:
        known.keep(front, values)
    return Success(FrontMatter(values=values, lines=Lines(file_label, front), body=body))


def _checked_values(file_label: str, front: str) -> tuple[dict[str, PlainValue], dict[str, int]]:
    """The plain values of ``front`` and the line of every key path, or the first problem
    (:class:`DocumentError`), as the event path names it when the C path finds one."""
    lines: dict[str, int] = {"": 1}
    try:
        values = _values(file_label, _composed_in_c(front), lines)
    except (_ReadAgainError, DocumentError):  # the event path names what it refuses first
        lines = {"": 1}
        values = _values(file_label, _compose(file_label, front), lines)
    return values, lines


def _values(
    file_label: str, node: yaml.Node | None, lines: dict[str, int]
) -> dict[str, PlainValue]:
    if not isinstance(node, yaml.MappingNode):
        _refuse(file_label, 1, "", "the front matter must be a mapping of keys to values")
    return _mapping(file_label, node, "", lines, 1)


def nearest_line(lines: Mapping[str, int], key: str) -> int:
    """The line of ``key``, or of the nearest enclosing key the file spells out.

    >>> nearest_line({"": 1, "keys": 4}, "keys[0].equal.origin"), nearest_line({"": 1}, "name")
    (4, 1)
    """
    while key and key not in lines:
        key = key[: max(key.rfind("."), key.rfind("["), 0)]
    return lines.get(key, 1)


def _refuse(file_label: str, line: int, key: str, problem: str) -> NoReturn:
    raise DocumentError(CatalogError(file=file_label, line=line, key=key, problem=problem))


def _split(file_label: str, text: str) -> tuple[str, str]:
    """The front matter between the two ``---`` lines, and the body after them."""
    lines = text.split("\n")
    if lines[0] != _FENCE:
        _refuse(file_label, 1, "", _first_line_problem(lines[0]))
    for index in range(1, len(lines)):
        if lines[index] == _FENCE:
            body = "\n".join(lines[index + 1 :]).rstrip("\n")
            return "\n".join(lines[1:index]), body
    _refuse(file_label, 1, "", "the front matter is not closed by a line that is exactly ---")


def _first_line_problem(first: str) -> str:
    if first == _FENCE + "\r":
        return "lines must end with \\n alone; this file ends them with \\r\\n"
    if first.startswith("\ufeff"):
        return "the file starts with a byte order mark; save it as UTF-8 without one"
    return "the first line must be exactly --- (the start of the front matter)"


class _ReadAgainError(Exception):
    """The front matter is read again by the checked event path (:func:`_compose`)."""


def _plain_tag(kind: type[yaml.Node], value: str | None, implicit: tuple[bool, bool]) -> str:
    """The tag the event path gives a node: every scalar text, a plain ``<<`` a merge key."""
    if kind is yaml.ScalarNode:
        return _MERGE_TAG if implicit[0] and value == "<<" else _STR_TAG
    return _MAP_TAG if kind is yaml.MappingNode else _SEQ_TAG


_CParser: Any
try:
    from yaml._yaml import CParser as _CParser
except ImportError:  # PyYAML built without libyaml: every front matter takes the event path
    _CParser = None
_PlainComposer: Any = None
if _CParser is not None:

    class _PlainComposer(_CParser):  # type: ignore[no-redef,misc]
        """libyaml's parser and composer, both in C, with a resolver that keeps every scalar
        text (no implicit typing) and no path resolvers."""

        def descend_resolver(self, parent: object, index: object) -> None:
            """No path resolvers."""

        def ascend_resolver(self) -> None:
            """No path resolvers."""

        resolve = staticmethod(_plain_tag)


# A front matter whose nesting could be this deep is read by the event path, which counts the
# depth before building (libyaml's composer recurses once per level): block nesting needs a
# column of its line per level or two, flow nesting a bracket.
_FAST_NESTING = 1_000
# What only anchors (&), aliases (*) and tags (!) are spelled with; a front matter holding none
# has none of them, and one holding any is read by the event path, which names the line.
_MARKERS = ("&", "*", "!")


def _composed_in_c(front: str) -> yaml.Node | None:
    """The node tree, composed in C (libyaml), of a front matter the event path would read
    alike: no anchor, alias or tag can be in it, no character the pure-Python reader refuses,
    no nesting near the depth a C recursion could not hold. Anything else (and anything libyaml
    does not read) raises :class:`_ReadAgainError`, for the event path to read it and name what it
    refuses. The node tree is the event path's: the same tags, styles and marks."""
    if (
        _PlainComposer is None
        or any(marker in front for marker in _MARKERS)
        or _NON_PRINTABLE.search(front)
        or front.count("[") + front.count("{") + max(map(len, front.split("\n"))) > _FAST_NESTING
    ):
        raise _ReadAgainError
    composer = _PlainComposer(front)
    try:
        node: yaml.Node | None = composer.get_single_node()
    except yaml.YAMLError as error:
        raise _ReadAgainError from error
    finally:
        composer.dispose()
    return node


def _compose(file_label: str, front: str) -> yaml.Node | None:
    """The YAML node tree, after refusing anchors, aliases, tags and deep nesting.

    libyaml's parser (when PyYAML was built with it) reads a well-formed front matter about ten
    times faster than the pure-Python one, and gives the same events and nodes (a plain
    scalar's style is ``""`` there, ``None`` here). A front matter holding a character the
    pure-Python reader refuses, or one libyaml cannot read, is read again by the pure-Python
    parser, so every refusal names the same line and problem whichever is installed.
    """
    if _FAST is not None and not _NON_PRINTABLE.search(front):
        try:
            return _composed(file_label, front, _FAST)
        except (yaml.YAMLError, DocumentError):
            pass
    return _composed(file_label, front, yaml.SafeLoader)


def _composed(file_label: str, front: str, loader: type[yaml.SafeLoader]) -> yaml.Node | None:
    """One pass over the parser's events: each checked, then built into the node tree (no
    tag resolution: every scalar stays text; a plain ``<<`` key is marked a merge key)."""
    try:
        depth = 0
        builder = _Builder()
        for event in yaml.parse(front, Loader=loader):
            depth += _depth_change(event)
            problem = _event_problem(event, depth)
            if problem is not None:
                _refuse(file_label, _line_of(event.start_mark), "", problem)
            builder.add(event)
        return builder.root
    except yaml.MarkedYAMLError as error:
        line = _line_of(error.problem_mark or error.context_mark)
        problem = safe_text(f"the front matter is not valid YAML: {error.problem or 'unreadable'}")
        _refuse(file_label, line, "", problem)
    except yaml.reader.ReaderError as error:  # a character YAML does not allow, e.g. NUL
        line = front.count("\n", 0, error.position) + _FIRST_YAML_LINE
        _refuse(file_label, line, "", "the front matter holds a character YAML does not allow")


class _Builder:
    """The node tree of a stream of events without anchors, aliases or tags (refused first)."""

    def __init__(self) -> None:
        self.root: yaml.Node | None = None
        self._open: list[yaml.MappingNode | yaml.SequenceNode] = []
        self._key: list[yaml.Node | None] = []

    def add(self, event: yaml.Event) -> None:
        """Take the next event."""
        mark: Any = event.start_mark  # libyaml's own Mark class, or the pure-Python one
        if isinstance(event, yaml.ScalarEvent):
            plain = event.style in _PLAIN
            tag = _MERGE_TAG if plain and event.value == "<<" else _STR_TAG
            self._place(yaml.ScalarNode(tag, event.value, mark, None, event.style))
        elif isinstance(event, yaml.MappingStartEvent):
            self._open.append(yaml.MappingNode(_MAP_TAG, [], mark))
            self._key.append(None)
        elif isinstance(event, yaml.SequenceStartEvent):
            self._open.append(yaml.SequenceNode(_SEQ_TAG, [], mark))
            self._key.append(None)
        elif isinstance(event, yaml.CollectionEndEvent):
            done = self._open.pop()
            self._key.pop()
            self._place(done)

    def _place(self, node: yaml.Node) -> None:
        if not self._open:
            self.root = node
            return
        parent = self._open[-1]
        if isinstance(parent, yaml.SequenceNode):
            parent.value.append(node)
        elif self._key[-1] is None:
            self._key[-1] = node
        else:
            parent.value.append((self._key[-1], node))
            self._key[-1] = None


def _check_line_breaks(file_label: str, front: str) -> None:
    """Refuse the line breaks YAML knows besides ``\\n``: they would shift every line number."""
    if not any(brk in front for brk in _OTHER_BREAKS):
        return
    for index, line in enumerate(front.split("\n")):
        if any(brk in line for brk in _OTHER_BREAKS):
            problem = "the front matter breaks a line with a character other than \\n"
            _refuse(file_label, index + _FIRST_YAML_LINE, "", problem)


def _line_of(mark: _Mark | None) -> int:
    """The file line of a YAML mark (the front matter starts on the file's second line)."""
    return 1 if mark is None else mark.line + _FIRST_YAML_LINE


def _depth_change(event: yaml.Event) -> int:
    if isinstance(event, yaml.CollectionStartEvent):
        return 1
    if isinstance(event, yaml.CollectionEndEvent):
        return -1
    return 0


def _event_problem(event: yaml.Event, depth: int) -> str | None:
    if isinstance(event, yaml.AliasEvent):
        return "YAML aliases are not allowed; write the value out"
    if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
        return "YAML anchors are not allowed; write each value out"
    if isinstance(event, yaml.ScalarEvent | yaml.CollectionStartEvent) and event.tag is not None:
        return "YAML tags are not allowed"
    if depth > _MAX_DEPTH:
        return f"the front matter nests deeper than {_MAX_DEPTH} levels"
    return None


def _plain(
    file_label: str, node: yaml.Node, path: str, lines: dict[str, int], depth: int
) -> PlainValue:
    """The plain value of ``node``, ``depth`` collections deep if it is one (deeper than the
    bound only in a tree composed in C: the event path refuses it first, naming the line)."""
    kind = type(node)
    if kind is yaml.ScalarNode:  # the most common node first, by its exact class
        return _scalar(file_label, node, path)
    if kind is yaml.MappingNode or isinstance(node, yaml.MappingNode):
        return _mapping(file_label, node, path, lines, depth)  # type: ignore[arg-type]
    if kind is yaml.SequenceNode or isinstance(node, yaml.SequenceNode):
        if depth > _MAX_DEPTH:
            raise _ReadAgainError
        items: list[PlainValue] = []
        for index, item in enumerate(node.value):
            item_path = f"{path}[{index}]"
            lines[item_path] = item.start_mark.line + _FIRST_YAML_LINE
            items.append(_plain(file_label, item, item_path, lines, depth + 1))
        return items
    return _scalar(file_label, node, path)


def _scalar(file_label: str, node: yaml.Node, path: str) -> PlainValue:
    value = str(node.value)
    if not value.isascii() and has_lone_surrogate(value):
        problem = f"the value holds {_SURROGATE}; write the character itself"
        _refuse(file_label, _line_of(node.start_mark), path, problem)
    if (
        value in _NULLS and isinstance(node, yaml.ScalarNode) and node.style in _PLAIN
    ):  # a plain (unquoted) null
        return None
    return value


def _mapping(
    file_label: str, node: yaml.MappingNode, path: str, lines: dict[str, int], depth: int
) -> dict[str, PlainValue]:
    if depth > _MAX_DEPTH:
        raise _ReadAgainError
    result: dict[str, PlainValue] = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + _FIRST_YAML_LINE
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE_TAG:
            _refuse(file_label, line, path, "keys must be plain names (no merge keys)")
        key = str(key_node.value)
        if not key.isascii() and has_lone_surrogate(key):
            _refuse(file_label, line, path, f"a key holds {_SURROGATE}")
        key_path = f"{path}.{key}" if path else key
        if key in result:
            _refuse(file_label, line, key_path, f"the key {quoted(key)} appears twice")
        lines[key_path] = line
        result[key] = _plain(file_label, value_node, key_path, lines, depth + 1)
    return result


def _unrefused_values(node: yaml.Node | None) -> dict[str, PlainValue]:
    """The plain values of a front matter composed in C, when nothing in it could be refused;
    else :class:`_ReadAgainError`, for the checked conversion (:func:`_values`) to name the
    problem and its line. It gives what that conversion gives (a quoted ``<<`` key, which it
    takes, is read again by it too), without the line of each key path."""
    if not isinstance(node, yaml.MappingNode):
        raise _ReadAgainError
    return _unrefused_mapping(node, 1)


def _unrefused_mapping(node: yaml.MappingNode, depth: int) -> dict[str, PlainValue]:
    if depth > _MAX_DEPTH:
        raise _ReadAgainError
    result: dict[str, PlainValue] = {}
    for key_node, value_node in node.value:
        key = key_node.value
        if not isinstance(key_node, yaml.ScalarNode) or key == "<<" or key in result:
            raise _ReadAgainError
        if not key.isascii() and has_lone_surrogate(key):
            raise _ReadAgainError
        # A scalar, the most common value, is read here rather than in a call of its own.
        if isinstance(value_node, yaml.ScalarNode):
            value: str = value_node.value
            if not value.isascii() and has_lone_surrogate(value):
                raise _ReadAgainError
            result[key] = None if value in _NULLS and value_node.style in _PLAIN else value
        else:
            result[key] = _unrefused(value_node, depth + 1)
    return result


def _unrefused(node: yaml.Node, depth: int) -> PlainValue:
    if isinstance(node, yaml.ScalarNode):
        value: str = node.value
        if not value.isascii() and has_lone_surrogate(value):
            raise _ReadAgainError
        return None if value in _NULLS and node.style in _PLAIN else value
    if isinstance(node, yaml.MappingNode):
        return _unrefused_mapping(node, depth)
    if not isinstance(node, yaml.SequenceNode) or depth > _MAX_DEPTH:
        raise _ReadAgainError
    return [_unrefused(item, depth + 1) for item in node.value]
