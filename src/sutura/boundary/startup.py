"""Startup: settings and catalog, then sources and anchors; each problem one operator sentence."""

import datetime
from collections.abc import Mapping
from pathlib import Path

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.answering import Service, unknown_source_aliases
from sutura.boundary.catalog_files import load_catalog
from sutura.boundary.raw_sql.base import RawRunner
from sutura.boundary.raw_sql.opening import open_raw, run_sql_problems
from sutura.boundary.settings_files import LoadedSettings, load_settings
from sutura.boundary.sources.base import Source
from sutura.boundary.sources.open import open_source
from sutura.core.base import Frozen
from sutura.core.catalog.error import CatalogError
from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.prompt import render_prompt
from sutura.core.text.escape import escape_text

MAX_INSTRUCTIONS_BYTES = 64 * 1024


class Loaded(Frozen, frozen=True):
    """Settings and pinned definitions, before any source is opened."""

    loaded: LoadedSettings
    pinned: PinnedDefinitions
    instructions: str | None = None

    def prompt(self) -> str:
        """The agent prompt for this deployment, read from its settings alone."""
        settings = self.loaded.settings
        return render_prompt(
            self.pinned,
            prose=settings.prompt.catalog_prose,
            limits=settings.limits,
            run_sql_enabled=settings.tools.run_sql.enabled,
            operator_instructions=self.instructions,
        )


def load(environ: Mapping[str, str]) -> Result[Loaded, list[str]]:
    """Settings and catalog, validated together; every problem as one operator sentence."""
    settings = load_settings(environ)
    if not is_successful(settings):
        return Failure([e.sentence() for e in settings.failure()])
    loaded = settings.unwrap()
    catalog_dir = loaded.resolve(loaded.settings.catalog.dir)
    pinned = load_catalog(catalog_dir, loaded.settings.catalog.version)
    if not is_successful(pinned):
        return Failure(catalog_problems(catalog_dir, pinned.failure()))
    instructions = _read_instructions(loaded)
    if not is_successful(instructions):
        return Failure([instructions.failure()])
    missing = unknown_source_aliases(pinned.unwrap(), loaded.settings)
    if missing:
        return Failure(
            [
                f"settings: sources.{alias}: a model reads this source; configure it"
                for alias in missing
            ]
        )
    if problems := run_sql_problems(loaded.settings):
        return Failure(problems)
    return Success(
        Loaded(loaded=loaded, pinned=pinned.unwrap(), instructions=instructions.unwrap())
    )


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


async def start(
    environ: Mapping[str, str], *, anchors: bool = True, context: Loaded | None = None
) -> Result[Service, list[str]]:
    """A running service: sources opened and, unless told otherwise, every anchor reproduced.

    ``context`` is what an earlier :func:`load` returned, so a transport that answered from it
    already starts the service from exactly that (and nothing is read twice).
    """
    if context is None:
        loaded = load(environ)
        if not isinstance(loaded, Success):
            return Failure(loaded.failure())
        context = loaded.unwrap()
    sources: dict[str, Source] = {}
    errors: list[str] = []
    for alias, source_settings in sorted(context.loaded.settings.sources.items()):
        opened = await open_source(alias, source_settings, context.loaded)
        if isinstance(opened, Success):
            sources[alias] = opened.unwrap()
        else:
            errors.append(f"settings: sources.{alias}: {opened.failure()}")
    raw = None if errors else await _raw_runner(context.loaded, errors)
    service = Service(
        settings=context.loaded.settings,
        pinned=context.pinned,
        sources=sources,
        today=lambda: datetime.datetime.now(datetime.UTC).date(),
        prompt=context.prompt(),
        raw=raw,
    )
    if not errors and anchors:
        errors.extend(m.sentence() for m in await service.check_anchors())
    if errors:
        await service.close()
        return Failure(errors)
    return Success(service)


async def _raw_runner(loaded: LoadedSettings, errors: list[str]) -> RawRunner | None:
    """The raw SQL runner when ``tools.run_sql`` is on; why it cannot open goes to ``errors``."""
    opened = await open_raw(loaded)
    if isinstance(opened, Success):
        runner: RawRunner | None = opened.unwrap()
        return runner
    errors.append(opened.failure())
    return None


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
        return Success(data.decode("utf-8"))
    except UnicodeDecodeError:
        return Failure(f"settings: prompt.instructions_file: {path} is not valid UTF-8")
