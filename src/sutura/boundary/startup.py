"""Startup: once settings and catalog are loaded (:func:`sutura.boundary.loading.load`), a
service's whole lifetime (:func:`open_service`): sources opened, every model checked against its
source, every anchor reproduced — each problem one operator sentence — and everything closed at
the end.

Every surface starts a service the same way, in one event loop::

    async with open_service(loaded, anchors=True) as started:
        if not is_successful(started):
            ...  # report started.failure(), one sentence each
        service = started.unwrap()
        ...      # service.call(...)
"""

import datetime
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager

import anyio
import msgspec
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.anchors import anchor_problems
from sutura.boundary.audit_sink import audit_sink
from sutura.boundary.loading import Loaded, catalog_problems, utc_today
from sutura.boundary.service import Service
from sutura.boundary.sources.authored import authored_sql_errors
from sutura.boundary.sources.open import open_raw, open_source
from sutura.boundary.sources.skeleton import Described, Faulted, RawRunner, Source, bounded
from sutura.boundary.tracing import otel_tracing
from sutura.core.catalog.checks.source_schema import (
    model_columns,
    model_problems,
    padded_columns,
    text_columns,
)
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.model import Model, table_label
from sutura.core.nouns.setting_keys import key_path
from sutura.core.nouns.source_facts import ModelColumn, SourceFacts
from sutura.core.sql.probe import schema_probe
from sutura.core.tool.capability import Capability, offered_by

_WITHOUT_DATA = frozenset({Capability.DESCRIBE_CATALOG, Capability.COMPILE_QUESTION})
STARTUP_BROKE = "startup: a check broke before anything was served; the log has the cause"

log = logging.getLogger("sutura.startup")


@asynccontextmanager
async def open_service(
    loaded: Loaded,
    *,
    anchors: bool = True,
    data: bool = True,
    now: Callable[[], datetime.datetime] | None = None,
    extents: bool = False,
) -> AsyncIterator[Result[Service, list[str]]]:
    """A service for the block: sources opened, models checked, anchors reproduced (unless
    ``anchors`` is false), where each metric's data is asked (with ``extents``: a server that
    starts) — or every reason there is none. Whatever was opened is closed when the block
    ends, however it ends.

    Without ``data`` nothing is opened: the service offers ``describe_catalog`` and
    ``compile_question`` alone (what ``sutura catalog`` and ``sutura compile`` show without
    touching a data system). ``now`` is the wall clock an
    answer's ``computed_at`` and its cache age are read from (UTC by default; tests pin it).
    """
    audit_path = loaded.loaded.settings.audit.path
    with audit_sink(None if audit_path is None else loaded.loaded.resolve(audit_path)) as sink:
        if not is_successful(sink):
            yield Failure([sink.failure()])
            return
        async with _opened_service(
            loaded, anchors=anchors, data=data, now=now, extents=extents
        ) as opened:
            yield opened


@asynccontextmanager
async def _opened_service(
    loaded: Loaded,
    *,
    anchors: bool,
    data: bool,
    now: Callable[[], datetime.datetime] | None,
    extents: bool,
) -> AsyncIterator[Result[Service, list[str]]]:
    sources: dict[str, Source] = {}
    runner: list[RawRunner] = []
    try:
        errors = _authored_sql_problems(loaded) if data else []
        if not errors and data:
            errors = await _open_all(loaded, sources, runner)
        offered = offered_by(bool(runner)) if data else _WITHOUT_DATA
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
                service.trace(traced.unwrap())
            else:
                errors = [*errors, traced.failure()]
        if not errors and data:
            learnt = _Learnt()
            errors = await _checked(_model_problems(loaded, sources, learnt))
            service.facts = {
                alias: learnt.facts(alias, facts) for alias, facts in service.facts.items()
            }
        if not errors and data:
            at_once = loaded.loaded.settings.server.max_concurrent_queries
            errors = await _last_checks(service, at_once, anchors=anchors, extents=extents)
        yield Failure(errors) if errors else Success(service)
    finally:
        with anyio.CancelScope(shield=True):
            for source in sources.values():
                await source.close()
            for opened in runner:
                await opened.close()


async def _last_checks(
    service: Service, at_once: int, *, anchors: bool, extents: bool
) -> list[str]:
    """The anchors reproduced (with ``anchors``) and where each metric's data is asked (with
    ``extents``), side by side when more than one statement may run at once: neither reads
    what the other finds (extents shape catalog pages and prompts, never an answer), so a
    start waits for the longer of the two rather than for both in turn. The extents take one
    of the ``at_once`` statements; the anchors share the rest."""
    if not anchors:
        if extents:
            await service.refresh_extents()
        return []
    if not extents:
        return await _checked(anchor_problems(service, at_once))
    if at_once == 1:
        problems = await _checked(anchor_problems(service, at_once))
        if not problems:
            await service.refresh_extents()
        return problems
    async with anyio.create_task_group() as group:
        group.start_soon(service.refresh_extents)
        problems = await _checked(anchor_problems(service, at_once - 1))
    return problems


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
            errors.append(f"settings: {key_path('sources', alias)}: {opened.failure()}")
    run_sql = settings.tools.run_sql
    if errors or not run_sql.enabled or run_sql.source is None:
        return errors
    raw = await open_raw(run_sql.source, settings.sources[run_sql.source], context)
    if is_successful(raw):
        runner.append(raw.unwrap())
        return []
    return [raw.failure()]


class _Learnt:
    """What describing the models' tables taught of each source, under its alias: the columns
    it holds as ``CHAR(n)``, those it holds as text, and the text ones it orders by code point
    as they are."""

    def __init__(self) -> None:
        self.held: dict[str, set[ModelColumn]] = {}
        self.texts: dict[str, set[ModelColumn]] = {}
        self.code_point: dict[str, set[ModelColumn]] = {}

    def facts(self, alias: str, known: SourceFacts) -> SourceFacts:
        """``known`` (the source's dialect and zone) with what was learnt of its columns."""
        return msgspec.structs.replace(
            known,
            fixed_length=frozenset(self.held.get(alias, ())),
            text=frozenset(self.texts.get(alias, ())),
            code_point=frozenset(self.code_point.get(alias, ())),
        )


def _add(into: dict[str, set[ModelColumn]], model: Model, names: Iterable[str]) -> None:
    into.setdefault(model.source, set()).update(
        ModelColumn(model=model.name, column=name) for name in names
    )


async def _model_problems(
    loaded: Loaded, sources: Mapping[str, Source], learnt: _Learnt
) -> list[str]:
    """Every model checked against the table its source really has; what its columns are
    (``CHAR(n)``, text, ordered by code point) added to ``learnt``.

    The models are asked at once, at most ``server.max_concurrent_queries`` at a time (as the
    anchors are), so one model's statement is built while another's runs; the problems come
    in catalog order."""
    models = loaded.pinned.catalog.models
    found: list[list[CatalogError]] = [[] for _ in models]
    waiting = iter(enumerate(models))

    async def checker() -> None:
        for index, model in waiting:  # shared: each model is taken by one checker, in order
            found[index] = await _model_errors(loaded, model, sources[model.source], learnt)

    # As many checkers as models may be asked at once, not a task per model (each task's
    # spawning was a fourth of the loop's work for 200 models).
    at_once = min(loaded.loaded.settings.server.max_concurrent_queries, len(models))
    async with anyio.create_task_group() as group:
        for _ in range(at_once):
            group.start_soon(checker)
    errors = [error for errors in found for error in errors]
    return catalog_problems(loaded.catalog_dir, errors) if errors else []


async def _model_errors(
    loaded: Loaded, model: Model, source: Source, learnt: _Learnt
) -> list[CatalogError]:
    document = loaded.catalog.model_document(model.name)
    if document is None:  # every model comes from a document
        return []
    probe = schema_probe(model, source.dialect)

    async def describe(deadline_at: float) -> Described:
        return await source.describe(probe, deadline_at)

    found = await bounded(
        source, describe, deadline_seconds=loaded.loaded.settings.limits.deadline_seconds
    )
    if isinstance(found, Faulted):
        return [document.error("table", _unread(model, found))]
    columns, dialect = found.columns, source.dialect
    _add(learnt.held, model, padded_columns(model, columns, dialect))
    _add(learnt.texts, model, text_columns(model, columns, dialect))
    _add(learnt.code_point, model, model_columns(model, found.code_point, dialect))
    return [
        document.error(key, problem) for key, problem in model_problems(model, columns, dialect)
    ]


def _unread(model: Model, found: Faulted) -> str:
    """Why a model's table could not be described, as an operator sentence."""
    source = quoted(model.source)
    if found.fault.value != "statement":
        return (
            f"the source {source} could not be asked about the table"
            f" ({found.fault.value}; details in the log)"
        )
    (only,) = model.table if len(model.table) == 1 else ("",)
    # A table once written "schema.table" now names one table with a dot in its name.
    hint = (
        "; a dot is part of a name: write a schema's table as [schema, table]"
        if "." in only
        else ""
    )
    return (
        f"the source {source} has no table {quoted(table_label(model.table))} this role may"
        f" read (details in the log){hint}"
    )
