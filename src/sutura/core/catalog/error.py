"""The catalog error: one problem in one catalog file, named by file, line and key path.

Every text an author wrote is untrusted. A problem sentence never carries a written value: names
pass through :func:`quoted`, which escapes every character a terminal or a reader could take
for layout or control, and caps the length visibly.

>>> CatalogError(
...     file="metrics/revenue.md", line=7, key="measure.simple.aggregate",
...     problem="expected one of sum, count",
... ).sentence()
'metrics/revenue.md:7: measure.simple.aggregate: expected one of sum, count'
>>> CatalogError(file=".", line=0, key="", problem="the catalog has no documents").sentence()
'.: the catalog has no documents'
>>> quoted("rev\\x1b[2Jenue")
"'rev\\\\u001b[2Jenue'"
"""

from sutura.core.nouns.frozen import Frozen
from sutura.core.text.escape import escape_text, is_plain_but_backslashes

_MAX_QUOTED = 80


class CatalogError(Frozen, frozen=True):
    """One problem in a catalog.

    Attributes:
        file: the file's path relative to the catalog directory, POSIX style (``.`` for the
            directory itself).
        line: the 1-based line in the file, or 0 when the problem has no line (the whole
            file, the directory).
        key: the dotted key path (``measure.simple.aggregate``, ``dimensions[1].via``), or ``""``
            for the document as a whole.
        problem: a sentence that names what is wrong without echoing a written value; it is safe
            to print as it stands (names in it went through :func:`quoted`).

    ``file`` and ``key`` hold the location as it is (a program may match on it);
    :meth:`sentence` escapes them.
    """

    file: str
    line: int
    key: str
    problem: str

    def sentence(self) -> str:
        """The error as one line: ``file:line: key: problem`` (parts that are absent omitted)."""
        where = safe_text(self.file)
        if self.line > 0:
            where = f"{where}:{self.line}"
        if self.key:
            where = f"{where}: {safe_text(self.key)}"
        return f"{where}: {self.problem}"


def has_unsafe_characters(text: str) -> bool:
    r"""Whether ``text`` holds a control, separator, unassigned or invisible character.

    The backslash, in the escape set only so that escapes stay readable, is allowed.

    >>> [has_unsafe_characters(t) for t in ("amount", "a b", "a\\b", "a\tb", "a\u202eb")]
    [False, False, False, True, True]
    """
    return not is_plain_but_backslashes(text)


def safe_text(text: str) -> str:
    """``text`` with every character of the escape set written as a visible escape."""
    return escape_text(text)


def quoted(text: str) -> str:
    """``text`` escaped, in single quotes, cut visibly past 80 characters.

    >>> quoted("north")
    "'north'"
    >>> quoted("x" * 85)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…[+5 chars]'"
    """
    shown = text[:_MAX_QUOTED]
    cut = f"…[+{len(text) - _MAX_QUOTED} chars]" if len(text) > _MAX_QUOTED else ""
    return "'" + safe_text(shown).replace("'", "\\'") + cut + "'"
