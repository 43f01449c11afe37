"""The front-matter cache: what reading each catalog document's YAML gave, kept on disk by the
exact text that was read, so that a catalog read again reads the YAML of changed documents only.

Reading YAML is most of reading a large catalog (of 3,200 documents, 175 of 310 ms), and
between two commands most documents are unchanged. One file per catalog directory, under
``catalog.cache_dir`` (by default ``$XDG_CACHE_HOME/sutura``, else ``~/.cache/sutura``), holds
the plain values of every front matter the last read of that catalog read without refusal,
each under the SHA-256 of its text. The file is stamped with the reader's own code (the
front-matter module's bytes, sutura's and PyYAML's versions): a file written by any other
reader is not used. Everything after the YAML (each document's keys and values checked and
built, the catalog checked and pinned) runs on every read, and a refusal is never kept, so a
document that is refused is refused again, naming its line. A value is never read from the
cache unless the very same text gave it.

The cache is the operator's own file, trusted as the installation is: a file that is not the
user's own, or that others may write, is not read. It is written owner-only, atomically (a
reader sees the old file or the new one), and only when the catalog's front matters changed. A
file that cannot be read or decoded is read as empty; a directory that cannot be written is
left alone (the catalog is read as without a cache). At most :data:`KEEP_CATALOGS` catalogs'
files are kept; the ones read longest ago go first. ``catalog.cache: false`` turns it off.
"""

import contextlib
import functools
import hashlib
import logging
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import msgspec
import yaml

import sutura
from sutura.core.catalog.document import front_matter
from sutura.core.catalog.document.front_matter import PlainValue

log = logging.getLogger(__name__)

KEEP_CATALOGS: Final = 32
"""At most this many catalogs' files are kept in the cache directory."""

MAX_BYTES: Final = 64 * 1024 * 1024
"""A cache file larger than this is neither read nor written."""

_FORMAT: Final = 1
_FOLDER: Final = "front-matter"
_SUFFIX: Final = ".json"


class _Stored(msgspec.Struct, frozen=True):
    """A cache file: the reader that wrote it, and each front matter's values by digest."""

    reader: str
    fronts: dict[str, msgspec.Raw]


def default_cache_dir(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CACHE_HOME/sutura`` (when that is an absolute path), else ``$HOME/.cache/sutura``;
    None when neither variable names an absolute directory.

    >>> default_cache_dir({"XDG_CACHE_HOME": "/var/cache/me", "HOME": "/home/me"})
    PosixPath('/var/cache/me/sutura')
    >>> default_cache_dir({"XDG_CACHE_HOME": "relative", "HOME": "/home/me"})
    PosixPath('/home/me/.cache/sutura')
    >>> default_cache_dir({}) is None
    True
    """
    xdg = environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "sutura"
    home = environ.get("HOME", "")
    return Path(home) / ".cache" / "sutura" if os.path.isabs(home) else None


class FrontMatterCache:
    """Front matters read before, from the cache file of one catalog directory
    (:class:`sutura.core.catalog.document.front_matter.KnownFronts`)."""

    def __init__(self, kept: tuple[Path, str] | None, stored: dict[str, msgspec.Raw]) -> None:
        """The cache kept at a path by a reader (``kept``; None: kept nowhere), holding
        ``stored``."""
        self._kept = kept
        self._stored = stored
        self._used: dict[str, msgspec.Raw] = {}
        self._added = False
        self._last: tuple[str, str] | None = None

    @classmethod
    def opened(cls, directory: Path, catalog_dir: Path) -> "FrontMatterCache":
        """The cache of ``catalog_dir`` kept under ``directory``, as its file holds it (empty
        when there is no such file, or it cannot be read, or another reader wrote it)."""
        reader = _reader()
        if reader is None:
            return cls(None, {})
        path = directory / _FOLDER / (_digest(str(catalog_dir.resolve())) + _SUFFIX)
        return cls((path, reader), _read(path, reader))

    def values(self, front: str) -> dict[str, PlainValue] | None:
        """The values reading ``front`` gave, or None when it was not read before."""
        key = self._key(front)
        raw = self._stored.get(key)
        if raw is None:
            return None
        try:
            values = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return None
        if not isinstance(values, dict):
            return None
        self._used[key] = raw
        return values

    def keep(self, front: str, values: dict[str, PlainValue]) -> None:
        """Remember that reading ``front`` gave ``values`` (encoded now: what the caller does
        with them later is not kept)."""
        self._used[self._key(front)] = msgspec.Raw(msgspec.json.encode(values))
        self._added = True

    def save(self) -> None:
        """Write the front matters read since opening (those of the catalog as it is now) to
        the cache file, when they are not what it held; a failure is logged and left."""
        if self._kept is None or (not self._added and self._used.keys() == self._stored.keys()):
            return
        path, reader = self._kept
        data = msgspec.json.encode(_Stored(reader=reader, fronts=self._used))
        if len(data) > MAX_BYTES:
            log.debug("front-matter cache: %s not written: %d bytes", path, len(data))
            return
        try:
            _write(path, data)
        except OSError as error:
            log.debug("front-matter cache: %s not written: %s", path, error)
            return
        _prune(path.parent)

    def _key(self, front: str) -> str:
        """The digest of ``front`` (the last one asked is kept: a miss is told right after)."""
        if self._last is not None and self._last[0] is front:
            return self._last[1]
        key = _digest(front)
        self._last = (front, key)
        return key


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@functools.cache
def _reader() -> str | None:
    """What the front matters' values were read by: this format, sutura's and PyYAML's
    versions, whether libyaml was in it, and the bytes of the module that reads them (an
    edited checkout reads anew); None when that module's source cannot be read."""
    try:
        code = Path(front_matter.__file__).read_bytes()
    except (OSError, TypeError):
        return None
    libyaml = getattr(yaml, "__with_libyaml__", False)
    stamp = f"{_FORMAT} sutura {sutura.__version__} pyyaml {yaml.__version__} libyaml {libyaml}"
    return f"{stamp} {hashlib.sha256(code).hexdigest()}"


def _read(path: Path, reader: str) -> dict[str, msgspec.Raw]:
    """The front matters held at ``path`` when ``reader`` wrote them, else none."""
    try:
        with open(path, "rb") as file:
            info = os.fstat(file.fileno())
            if info.st_size > MAX_BYTES or not _owned(info):
                return {}
            data = file.read()
    except OSError:
        return {}
    with contextlib.suppress(OSError):  # else kept as long as its last write keeps it
        os.utime(path)  # read now: pruned after the catalogs read longer ago
    try:
        stored = msgspec.json.decode(data, type=_Stored)
    except msgspec.DecodeError:
        log.debug("front-matter cache: %s cannot be decoded; read as empty", path)
        return {}
    return stored.fronts if stored.reader == reader else {}


def _owned(info: os.stat_result) -> bool:
    """Whether a cache file is the user's own and no one else may write it (a file another
    user planted, or could replace, is not read)."""
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or info.st_uid == getuid()
    if not mine or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        log.debug("front-matter cache: a file not the user's own alone is not read")
        return False
    return True


def _write(path: Path, data: bytes) -> None:
    """``data`` at ``path``, replacing it at once (owner-only; the directories made so)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _prune(folder: Path) -> None:
    """Remove all but the :data:`KEEP_CATALOGS` cache files read or written last."""
    try:
        entries = [e for e in os.scandir(folder) if e.name.endswith(_SUFFIX) and e.is_file()]
        if len(entries) <= KEEP_CATALOGS:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns, reverse=True)
        for entry in entries[KEEP_CATALOGS:]:
            os.unlink(entry.path)
    except OSError as error:
        log.debug("front-matter cache: %s not pruned: %s", folder, error)
