"""Loading: settings and catalog (:func:`load`), validated together, before any source is
opened. What ``sutura mcp`` needs to answer its handshake, so it imports neither the compiler
nor a driver: opening a service is :mod:`sutura.boundary.startup`.
"""

import datetime
import zoneinfo
from collections.abc import Callable, Mapping
from pathlib import Path

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.catalog_files import CatalogRead, read_catalog
from sutura.boundary.front_matter_cache import FrontMatterCache, default_cache_dir
from sutura.boundary.prompts import Prompts
from sutura.boundary.settings_files import LoadedSettings, load_settings, unset_note
from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.open import run_sql_problems
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.setting_keys import key_path
from sutura.core.text.escape import escape_text
from sutura.core.tool.caller import Caller

MAX_INSTRUCTIONS_BYTES = 64 * 1024


class Loaded(Frozen, frozen=True):
    """Settings and the pinned catalog, before any source is opened."""

    loaded: LoadedSettings
    catalog: CatalogRead
    environ: Mapping[str, str]
    instructions: str | None = None

    @property
    def pinned(self) -> PinnedDefinitions:
        """The pinned definitions."""
        return self.catalog.pinned

    @property
    def catalog_dir(self) -> Path:
        """The catalog directory, as the settings name it."""
        return self.loaded.resolve(self.loaded.settings.catalog.dir)

    def prompt(self) -> str:
        """The agent prompt of a caller without identity (every scope, every audience): what
        ``sutura mcp`` says at ``initialize`` and ``sutura prompt`` prints."""
        local = Caller.local(request_id="prompt", surface="cli")
        return Prompts(self.pinned, self.loaded.settings, self.instructions).for_caller(local)

    def source_context(self) -> SourceContext:
        """What opening a source needs beyond its own settings."""
        return self.loaded.source_context(self.environ)


def catalog_problems(catalog_dir: Path, errors: list[CatalogError]) -> list[str]:
    """One line naming the catalog directory that was read, then each problem the way the
    catalog docs show it, its file relative to that directory.

    >>> error = CatalogError(file="m.md", line=7, key="extra", problem="unknown key")
    >>> print(*catalog_problems(Path("/srv/catalog"), [error]), sep="\\n")
    catalog /srv/catalog: 1 problem; files are named relative to this directory
    m.md:7: extra: unknown key
    """
    count = f"{len(errors)} problem" + ("" if len(errors) == 1 else "s")
    where = escape_text(str(catalog_dir))
    heading = f"catalog {where}: {count}; files are named relative to this directory"
    return [heading, *(e.sentence() for e in errors)]


SettingsRead = Callable[[LoadedSettings], None]
"""Told the settings once they are valid, before the catalog is read (a command opens its
data files meanwhile)."""


def load(
    environ: Mapping[str, str], settings_read: SettingsRead | None = None
) -> Result[Loaded, list[str]]:
    """Settings and catalog, validated together; every problem as one operator sentence,
    after where settings were looked for when ``SUTURA_CONFIG_DIR`` is unset.

    ``environ`` is the environment the composition root read: its ``SUTURA_*`` variables are
    settings, and secrets named in the settings are looked up in it. ``settings_read`` is told
    the settings once they are valid, before the catalog is read.
    """
    return _load(environ, settings_read).alt(lambda problems: [*unset_note(environ), *problems])


def _load(
    environ: Mapping[str, str], settings_read: SettingsRead | None
) -> Result[Loaded, list[str]]:
    settings = load_settings(environ)
    if not is_successful(settings):
        return Failure([e.sentence() for e in settings.failure()])
    loaded = settings.unwrap()
    zone_problem = _time_zone_problem(loaded.settings.catalog.time_zone)
    if zone_problem is not None:
        return Failure([zone_problem])
    if settings_read is not None:
        settings_read(loaded)
    catalog_dir = loaded.resolve(loaded.settings.catalog.dir)
    catalog_settings = loaded.settings.catalog
    known = _front_matter_cache(loaded, environ, catalog_dir)
    catalog = read_catalog(
        catalog_dir,
        catalog_settings.version,
        catalog_settings.time_zone,
        limits=loaded.settings.limits,
        today=utc_today(),
        known=known,
    )
    if known is not None:
        known.save()
    if not is_successful(catalog):
        return Failure(catalog_problems(catalog_dir, catalog.failure()))
    instructions = _read_instructions(loaded)
    if not is_successful(instructions):
        return Failure([instructions.failure()])
    missing = sorted(
        {m.source for m in catalog.unwrap().pinned.catalog.models} - set(loaded.settings.sources)
    )
    if missing:
        return Failure(
            [
                f"settings: {key_path('sources', alias)}: a model reads this source; configure it"
                for alias in missing
            ]
        )
    if problems := run_sql_problems(loaded.settings):
        return Failure(problems)
    return Success(
        Loaded(
            loaded=loaded,
            catalog=catalog.unwrap(),
            environ=environ,
            instructions=instructions.unwrap(),
        )
    )


def _front_matter_cache(
    loaded: LoadedSettings, environ: Mapping[str, str], catalog_dir: Path
) -> FrontMatterCache | None:
    """The front-matter cache of ``catalog_dir`` (``catalog.cache``), or None when it is off
    or no directory is named for it."""
    settings = loaded.settings.catalog
    if not settings.cache:
        return None
    written = settings.cache_dir
    directory = default_cache_dir(environ) if written is None else loaded.resolve(written)
    return None if directory is None else FrontMatterCache.opened(directory, catalog_dir)


def _time_zone_problem(name: str) -> str | None:
    """Why ``catalog.time_zone`` names no zone this system knows, or None."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return (
            f"settings: catalog.time_zone: {quoted(name)} is not a time zone this system knows;"
            " write an IANA name such as UTC or Europe/Paris"
        )
    return None


def utc_today() -> datetime.date:
    """Today in UTC: what ``range.last`` counts back from, whatever the host's zone."""
    return datetime.datetime.now(datetime.UTC).date()


def _read_instructions(loaded: LoadedSettings) -> Result[str | None, str]:
    """The operator's instructions file, read strictly as UTF-8, or None when none is set."""
    name = loaded.settings.prompt.instructions_file
    if name is None:
        return Success(None)
    path = loaded.resolve(name)
    try:
        data = path.read_bytes()
    except OSError as err:
        return Failure(
            f"settings: prompt.instructions_file: {path} cannot be read ({type(err).__name__})"
        )
    if len(data) > MAX_INSTRUCTIONS_BYTES:
        return Failure(f"settings: prompt.instructions_file: {path} is larger than 64 KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Failure(f"settings: prompt.instructions_file: {path} is not valid UTF-8")
    # Like a catalog body, the file's final line breaks end the file and are not a line.
    return Success(text.rstrip("\n") or None)
