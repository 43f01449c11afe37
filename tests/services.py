"""Opening a service the way every surface does, for tests that talk to the service itself."""

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

import anyio
from returns.pipeline import is_successful

from sutura.boundary.loading import load
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import Source
from sutura.boundary.startup import open_service
from sutura.core.settings import Settings
from sutura.core.tool.arguments import Arguments
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Reply

OPEN_SECONDS = 60.0


@asynccontextmanager
async def serving(
    environ: Mapping[str, str], *, anchors: bool = True, data: bool = True
) -> AsyncIterator[Service]:
    """The service ``environ`` describes, opened for the block (the test fails if it cannot)."""
    loaded = load(environ)
    assert is_successful(loaded), loaded.failure()
    with anyio.fail_after(OPEN_SECONDS):
        opening = open_service(loaded.unwrap(), anchors=anchors, data=data)
        started = await opening.__aenter__()
    try:
        assert is_successful(started), started.failure()
        yield started.unwrap()
    finally:
        with anyio.fail_after(OPEN_SECONDS):
            await opening.__aexit__(None, None, None)


async def problems_opening(environ: Mapping[str, str], *, anchors: bool = True) -> list[str]:
    """Why the service ``environ`` describes does not open (the test fails if it does)."""
    loaded = load(environ)
    if not is_successful(loaded):
        return loaded.failure()
    with anyio.fail_after(OPEN_SECONDS):
        async with open_service(loaded.unwrap(), anchors=anchors) as started:
            assert not is_successful(started), "the service opened"
            return started.failure()


def sources_of(service: Service) -> Mapping[str, Source]:
    """The sources ``service`` opened: what a test closes, wraps or inspects behind its back
    (no surface reads them)."""
    return service._sources


def settings_of(service: Service) -> Settings:
    """The settings ``service`` was built with (a test builds a variant of it)."""
    return service._settings


def local_caller() -> Caller:
    """The caller of a surface without identity."""
    return Caller.local(request_id="test", surface="test")


async def call(
    service: Service, capability: Capability, arguments: Arguments, deadline: float = 30.0
) -> Reply:
    """One capability call as the local caller, bounded."""
    with anyio.fail_after(deadline + 10):
        return await service.call(capability, arguments, local_caller(), deadline)
