"""Startup: settings and catalog (:func:`load`), then a service's whole lifetime
(:func:`open_service`): sources opened, every model checked against its source, every anchor
reproduced — each problem one operator sentence — and everything closed at the end.

Every surface starts a service the same way, in one event loop::

    async with open_service(loaded, anchors=True) as started:
        if not is_successful(started):
            ...  # report started.failure(), one sentence each
        service = started.unwrap()
        ...      # service.call(...)
"""

import datetime
import logging
import zoneinfo
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.anchors import anchor_problems
from sutura.boundary.audit_sink import audit_sink
from sutura.boundary.catalog_files import CatalogRead, read_catalog
from sutura.boundary.service import Service
from sutura.boundary.settings_files import LoadedSettings, load_settings
from sutura.boundary.sources.authored import authored_sql_errors
from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.open import open_raw, open_source, run_sql_problems
from sutura.boundary.sources.skeleton import Faulted, RawRunner, Source, bounded
from sutura.boundary.tracing import otel_tracing
from sutura.core.base import Frozen
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.catalog.model import Model
from sutura.core.catalog.pinned import PinnedDefinitions
from sutura.core.catalog.source_schema import model_problems
from sutura.core.prompt import deployment_prompt
from sutura.core.sql.probe import schema_probe
from sutura.core.text.escape import escape_text
from sutura.core.tool.capability import Capability, offered_by

MAX_INSTRUCTIONS_BYTES = 64 * 1024
STARTUP_BROKE = "startup: a check broke before anything was served; the log has the cause"

log = logging.getLogger("sutura.startup")


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
        """The agent prompt for this deployment, read from its settings alone."""
        return deployment_prompt(self.pinned, self.loaded.settings, self.instructions)

    def source_context(self) -> SourceContext:
        """What opening a source needs beyond its own settings."""
        settings = self.loaded.settings
        return SourceContext(
            base_dir=self.loaded.base_dir,
            limits=settings.limits,
            time_zone=settings.catalog.time_zone,
            environ=self.environ,
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


def load(environ: Mapping[str, str]) -> Result[Loaded, list[str]]:
    """Settings and catalog, validated together; every problem as one operator sentence.

    ``environ`` is the environment the composition root read: its ``SUTURA_*`` variables are
    settings, and secrets named in the settings are looked up in it.
    """
    settings = load_settings(environ)
    if not is_successful(settings):
        return Failure([e.sentence() for e in settings.failure()])
    loaded = settings.unwrap()
    zone_problem = _time_zone_problem(loaded.settings.catalog.time_zone)
    if zone_problem is not None:
        return Failure([zone_problem])
    catalog_dir = loaded.resolve(loaded.settings.catalog.dir)
    catalog_settings = loaded.settings.catalog
    catalog = read_catalog(
        catalog_dir,
        catalog_settings.version,
        catalog_settings.time_zone,
        limits=loaded.settings.limits,
        today=utc_today(),
    )
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
                f"settings: sources.{alias}: a model reads this source; configure it"
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


@asynccontextmanager
async def open_service(
    loaded: Loaded,
    *,
    anchors: bool = True,
    data: bool = True,
    now: Callable[[], datetime.datetime] | None = None,
) -> AsyncIterator[Result[Service, list[str]]]:
    """A service for the block: sources opened, models checked, anchors reproduced (unless
    ``anchors`` is false) — or every reason there is none. Whatever was opened is closed when
    the block ends, however it ends.

    Without ``data`` nothing is opened: the service offers ``describe_catalog`` alone (what
    ``sutura catalog`` shows without touching a data system). ``now`` is the wall clock an
    answer's ``computed_at`` and its cache age are read from (UTC by default; tests pin it).
    """
    audit_path = loaded.loaded.settings.audit.path
    with audit_sink(None if audit_path is None else loaded.loaded.resolve(audit_path)) as sink:
        if not is_successful(sink):
            yield Failure([sink.failure()])
            return
        async with _opened_service(loaded, anchors=anchors, data=data, now=now) as opened:
            yield opened


@asynccontextmanager
async def _opened_service(
    loaded: Loaded, *, anchors: bool, data: bool, now: Callable[[], datetime.datetime] | None
) -> AsyncIterator[Result[Service, list[str]]]:
    sources: dict[str, Source] = {}
    runner: list[RawRunner] = []
    try:
        errors = _authored_sql_problems(loaded) if data else []
        if not errors and data:
            errors = await _open_all(loaded, sources, runner)
        offered = offered_by(bool(runner)) if data else frozenset({Capability.DESCRIBE_CATALOG})
        service = Service(
            settings=loaded.loaded.settings,
            pinned=loaded.pinned,
            sources=sources,
            runner=runner[0] if runner else None,
            offered=offered,
            today=utc_today,
            instructions=loaded.instructions,
            now=now,
        )
        if loaded.loaded.settings.tracing.enabled:
            traced = otel_tracing()
            if is_successful(traced):
                service.observers.trace(traced.unwrap())
            else:
                errors = [*errors, traced.failure()]
        if not errors and data:
            errors = await _checked(_model_problems(loaded, sources))
        if not errors and data and anchors:
            errors = await _checked(anchor_problems(service))
        yield Failure(errors) if errors else Success(service)
    finally:
        with anyio.CancelScope(shield=True):
            for source in sources.values():
                await source.close()
            for opened in runner:
                await opened.close()


def _authored_sql_problems(loaded: Loaded) -> list[str]:
    """Authored SQL, refused before any source is opened: no source runs it."""
    errors = authored_sql_errors(loaded.catalog, loaded.loaded.settings.sources)
    return catalog_problems(loaded.catalog_dir, errors) if errors else []


async def _checked(problems: Awaitable[list[str]]) -> list[str]:
    """A startup check's problems; one that breaks is a problem too, its cause in the log."""
    try:
        return await problems
    except Exception:
        log.exception("a startup check broke")
        return [STARTUP_BROKE]


async def _open_all(
    loaded: Loaded, sources: dict[str, Source], runner: list[RawRunner]
) -> list[str]:
    """Open every source, then the raw runner when ``tools.run_sql`` is on."""
    settings = loaded.loaded.settings
    context = loaded.source_context()
    errors: list[str] = []
    for alias, source_settings in sorted(settings.sources.items()):
        opened = await open_source(alias, source_settings, context)
        if is_successful(opened):
            sources[alias] = opened.unwrap()
        else:
            errors.append(f"settings: sources.{alias}: {opened.failure()}")
    run_sql = settings.tools.run_sql
    if errors or not run_sql.enabled or run_sql.source is None:
        return errors
    raw = await open_raw(run_sql.source, settings.sources[run_sql.source], context)
    if is_successful(raw):
        runner.append(raw.unwrap())
        return []
    return [raw.failure()]


async def _model_problems(loaded: Loaded, sources: Mapping[str, Source]) -> list[str]:
    """Every model checked against the table its source really has."""
    errors: list[CatalogError] = []
    for model in loaded.pinned.catalog.models:
        errors.extend(await _model_errors(loaded, model, sources[model.source]))
    return catalog_problems(loaded.catalog_dir, errors) if errors else []


async def _model_errors(loaded: Loaded, model: Model, source: Source) -> list[CatalogError]:
    document = loaded.catalog.model_document(model.name)
    if document is None:  # every model comes from a document
        return []
    probe = schema_probe(model, source.dialect)

    async def describe(deadline_at: float) -> list[tuple[str, str]]:
        return await source.describe(probe, deadline_at)

    found = await bounded(
        source, describe, deadline_seconds=loaded.loaded.settings.limits.deadline_seconds
    )
    if isinstance(found, Faulted):
        problem = (
            f"the source {quoted(model.source)} has no table {quoted(model.table)} this role may"
            " read (details in the log)"
            if found.fault.value == "statement"
            else f"the source {quoted(model.source)} could not be asked about the table"
            f" ({found.fault.value}; details in the log)"
        )
        return [document.error("table", problem)]
    return [
        document.error(key, problem)
        for key, problem in model_problems(model, found, source.dialect)
    ]


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
