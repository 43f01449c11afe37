"""Startup: settings and catalog, then sources and anchors. Every problem is one operator sentence."""

import datetime
from collections.abc import Mapping

import msgspec
from returns.result import Failure, Result, Success

from sutura.boundary.answering import Service, unknown_source_aliases
from sutura.boundary.catalog_files import load_catalog
from sutura.boundary.settings_files import LoadedSettings, load_settings
from sutura.boundary.sources.base import Source
from sutura.boundary.sources.open import open_source
from sutura.core.pinned import PinnedDefinitions


class Loaded(msgspec.Struct, frozen=True, kw_only=True):
    """Settings and pinned definitions, before any source is opened."""

    loaded: LoadedSettings
    pinned: PinnedDefinitions


def load(environ: Mapping[str, str]) -> Result[Loaded, list[str]]:
    """Settings and catalog, validated together; every problem as one operator sentence."""
    settings = load_settings(environ)
    if not isinstance(settings, Success):
        return Failure([e.sentence() for e in settings.failure()])
    loaded = settings.unwrap()
    catalog_dir = loaded.resolve(loaded.settings.catalog.dir)
    pinned = load_catalog(catalog_dir, loaded.settings.catalog.version)
    if not isinstance(pinned, Success):
        return Failure([f"{catalog_dir}/{e.sentence()}" for e in pinned.failure()])
    missing = unknown_source_aliases(pinned.unwrap(), loaded.settings)
    if missing:
        return Failure(
            [
                f"settings: sources.{alias}: a model reads this source; configure it"
                for alias in missing
            ]
        )
    return Success(Loaded(loaded=loaded, pinned=pinned.unwrap()))


async def start(environ: Mapping[str, str], *, anchors: bool = True) -> Result[Service, list[str]]:
    """A running service: sources opened and, unless told otherwise, every anchor reproduced."""
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
    service = Service(
        settings=context.loaded.settings,
        pinned=context.pinned,
        sources=sources,
        today=lambda: datetime.datetime.now(datetime.UTC).date(),
    )
    if not errors and anchors:
        errors.extend(m.sentence() for m in await service.check_anchors())
    if errors:
        await service.close()
        return Failure(errors)
    return Success(service)
