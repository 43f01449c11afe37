"""Catalog files: walk a catalog directory, read each document, check and pin the catalog.

The walk is sorted and recursive over ``*.md`` files. Entries whose name starts with ``.`` are
skipped (editor lock files, version control). A symbolic link that leads out of the directory
is refused; a link to a directory inside it is not followed (its target is walked anyway); a
link to a file inside it is read. Files over 256 KiB, more than 10,000 documents, unreadable
files and files that are not strict UTF-8 are refused, each as a :class:`CatalogError`.
"""

import datetime
import functools
import os
import stat
from functools import partial
from pathlib import Path
from typing import assert_never

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.checks.catalog import REFERENCE_DAY, check_catalog
from sutura.core.catalog.document.front_matter import KnownFronts
from sutura.core.catalog.document.parse import Document, parse_document
from sutura.core.catalog.error import CatalogError, quoted, safe_text
from sutura.core.catalog.pinning.digests import pin
from sutura.core.definitions.knowledge import Caveat, GlossaryTerm, NotDefined, WorkedExample
from sutura.core.definitions.model import Derived, Metric, Model, Relationship
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.frozen import Frozen
from sutura.core.settings import LimitsSettings

MAX_FILE_BYTES = 256 * 1024
MAX_DOCUMENTS = 10_000
_DEFAULT_LIMITS = LimitsSettings()
_SUFFIX = ".md"


class _Walk:
    """The documents found so far, as (label, path), and the problems met on the way."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[tuple[str, str]] = []
        self.errors: list[CatalogError] = []

    def error(self, label: str, problem: str) -> None:
        self.errors.append(CatalogError(file=label, line=0, key="", problem=problem))

    def visit(self, directory: Path, prefix: str) -> None:
        """Walk ``directory`` (whose label is ``prefix``) in name order."""
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as error:
            self.error(prefix.rstrip("/") or ".", _os_problem("cannot be listed", error))
            return
        for entry in entries:
            if len(self.files) > MAX_DOCUMENTS:
                return
            if not entry.name.startswith("."):
                self._entry(entry, prefix + entry.name)

    def _entry(self, entry: os.DirEntry[str], label: str) -> None:
        if entry.is_symlink():
            path = Path(entry.path)
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):  # missing target, or a loop
                self.error(label, "a symbolic link whose target cannot be reached")
                return
            if not target.is_relative_to(self.root):
                self.error(label, "a symbolic link that leads out of the catalog directory")
                return
            if target.is_dir():
                return
        if entry.is_dir(follow_symlinks=False):
            self.visit(Path(entry.path), label + "/")
        elif entry.name.endswith(_SUFFIX):
            # The path as the walk found it: a Path made, stated and opened for each of 3,200
            # documents took more than a quarter of walking and reading them.
            self.files.append((label, entry.path))


def walk_catalog(directory: Path) -> Result[list[tuple[str, str]], list[CatalogError]]:
    """Every ``*.md`` document under ``directory``, sorted, as (label, path).

    Args:
        directory: the catalog directory.

    Returns:
        The documents in walk order with their labels (POSIX paths relative to ``directory``),
        or every problem the walk met.
    """
    if not directory.is_dir():
        problem = f"the catalog directory {quoted(str(directory))} does not exist"
        return Failure([CatalogError(file=".", line=0, key="", problem=problem)])
    walk = _Walk(directory.resolve())
    walk.visit(directory, "")
    if len(walk.files) > MAX_DOCUMENTS:
        walk.error(".", f"the catalog holds more than {MAX_DOCUMENTS} documents")
    return Failure(walk.errors) if walk.errors else Success(walk.files)


def read_document(label: str, path: str) -> Result[str, CatalogError]:
    """The text of one document: a regular file of at most 256 KiB, strict UTF-8.

    Args:
        label: the file's path relative to the catalog directory, for errors.
        path: where to read it.

    Returns:
        The decoded text, or why it cannot be used.
    """
    try:
        data = _read_regular(path)
    except OSError as error:
        return Failure(_file_error(label, 0, _os_problem("cannot be read", error)))
    if data is None:
        return Failure(_file_error(label, 0, "not a regular file"))
    if len(data) > MAX_FILE_BYTES:
        return Failure(_file_error(label, 0, f"the file is larger than {MAX_FILE_BYTES} bytes"))
    try:
        return Success(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return Failure(_file_error(label, line, "the file is not valid UTF-8"))


def _read_regular(path: str) -> bytes | None:
    """Up to ``MAX_FILE_BYTES + 1`` bytes of the file at ``path``; None when it is not a
    regular file. Opened without blocking (a FIFO is found out, not waited on) and read
    unbuffered: a file object and a second lookup of the path for each of 3,200 documents took
    half of reading them."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a socket, say, that cannot be opened
            return None
        raise
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        chunks: list[bytes] = []
        left = MAX_FILE_BYTES + 1
        while left > 0 and (chunk := os.read(descriptor, left)):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


class CatalogRead(Frozen, frozen=True, dict=True):
    """The pinned catalog, and the documents it was read from (for errors that name a line).

    (``dict=True`` gives room for the indexes of documents by name, built on first use.)
    """

    pinned: PinnedDefinitions
    documents: tuple[Document, ...]

    def model_document(self, name: str) -> Document | None:
        """The document that defines the model ``name`` (by name: checking settles a model's
        shared dimensions into a new value, so its identity is not its document's)."""
        if self.pinned.catalog.model(name) is None:
            return None
        return self._models_by_name.get(name)

    def metric_document(self, name: str) -> Document | None:
        """The document that defines the metric ``name`` (by name: checking settles a metric's
        expressions into a new value, so its identity is not its document's)."""
        if self.pinned.catalog.metric(name) is None:
            return None
        return self._metrics_by_name.get(name)

    @functools.cached_property
    def _metrics_by_name(self) -> dict[str, Document]:
        """Each metric's first document, by name."""
        return self._by_name(Metric)

    @functools.cached_property
    def _models_by_name(self) -> dict[str, Document]:
        """Each model's first document, by name."""
        return self._by_name(Model)

    def _by_name(self, kind: type[Metric] | type[Model]) -> dict[str, Document]:
        """Each first document of ``kind`` (metrics or models), by name."""
        index: dict[str, Document] = {}
        for doc in self.documents:
            definition = doc.definition
            match definition:
                case Metric() | Model():
                    if isinstance(definition, kind):
                        index.setdefault(definition.name, doc)
                case (
                    Relationship()
                    | Derived()
                    | GlossaryTerm()
                    | Caveat()
                    | NotDefined()
                    | WorkedExample()
                ):
                    pass
                case _:
                    assert_never(definition)
        return index


def read_catalog(
    directory: Path,
    version: str,
    time_zone: str,
    *,
    limits: LimitsSettings = _DEFAULT_LIMITS,
    today: datetime.date = REFERENCE_DAY,
    known: KnownFronts | None = None,
) -> Result[CatalogRead, list[CatalogError]]:
    """Walk, read, parse, check and pin the catalog in ``directory``, keeping its documents.

    ``limits`` and ``today`` are what a worked example's question is resolved under: the
    deployment's bounds and the day its ``range.last`` counts back from. ``known``: front
    matters read before, whose YAML is not read again (:mod:`sutura.boundary.front_matter_cache`).
    """
    return (
        walk_catalog(directory)
        .bind(partial(_parse_all, known=known))
        .bind(
            lambda documents: check_catalog(documents, limits=limits, today=today).map(
                lambda catalog: CatalogRead(
                    pinned=pin(catalog, version, time_zone), documents=tuple(documents)
                )
            )
        )
    )


def load_catalog(
    directory: Path, version: str, time_zone: str = "UTC"
) -> Result[PinnedDefinitions, list[CatalogError]]:
    """Walk, read, parse, check and pin the catalog in ``directory``.

    Args:
        directory: the catalog directory.
        version: the operator's label for this catalog (``catalog.version``).

    Returns:
        The pinned definitions, or every problem found: the walk's, else each file's first,
        else the checks across documents.
    """
    return read_catalog(directory, version, time_zone).map(lambda read: read.pinned)


def _parse_all(
    files: list[tuple[str, str]], known: KnownFronts | None = None
) -> Result[list[Document], list[CatalogError]]:
    documents: list[Document] = []
    errors: list[CatalogError] = []
    for label, path in files:
        parsed = read_document(label, path).bind(partial(parse_document, label, known=known))
        if is_successful(parsed):
            documents.append(parsed.unwrap())
        else:
            errors.append(parsed.failure())
    return Failure(errors) if errors else Success(documents)


def _file_error(label: str, line: int, problem: str) -> CatalogError:
    return CatalogError(file=label, line=line, key="", problem=problem)


def _os_problem(what: str, error: OSError) -> str:
    reason = safe_text(error.strerror) if error.strerror else type(error).__name__
    return f"{what} ({reason})"
