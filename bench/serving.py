"""How the benchmarks open a service and ask it: the one call every surface makes."""

import datetime
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import duckdb
from returns.pipeline import is_successful

from sutura.boundary.example import DATABASE
from sutura.boundary.loading import load, utc_today
from sutura.boundary.service import Service
from sutura.boundary.startup import open_service
from sutura.core.nouns.question import Question
from sutura.core.sql.planning import Plan, plan_question
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Reply


def environ(config: Path, secrets: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a benchmark deployment reads: its settings directory, its secrets."""
    return {"SUTURA_CONFIG_DIR": str(config), **(secrets or {})}


@asynccontextmanager
async def serving(config: Path, secrets: Mapping[str, str] | None = None) -> AsyncIterator[Service]:
    """The service configured in ``config``, opened for the block (raises if it cannot)."""
    loaded = load(environ(config, secrets))
    if not is_successful(loaded):
        raise RuntimeError("; ".join(loaded.failure()))
    async with open_service(loaded.unwrap(), anchors=True) as started:
        if not is_successful(started):
            raise RuntimeError("; ".join(started.failure()))
        yield started.unwrap()


async def ask(service: Service, question: Question) -> Reply:
    """``ask_metric`` as the local caller, under the deployment's own deadline."""
    caller = Caller.local(request_id=uuid.uuid4().hex, surface="bench")
    deadline = service.settings.limits.deadline_seconds
    return await service.call(Capability.ASK_METRIC, question, caller, deadline)


def plan(config: Path, question: Question, today: datetime.date | None = None) -> Plan:
    """``question`` resolved and compiled as the service would, touching no data."""
    loaded = load(environ(config)).unwrap()
    planned = plan_question(question, loaded.pinned, loaded.loaded.settings, today or utc_today())
    return planned.unwrap()


async def interleaved_medians(
    raw: Callable[[], object], ours: Callable[[], Awaitable[object]], repeat: int
) -> tuple[float, float]:
    """The median wall times, in seconds, of ``raw()`` and of ``await ours()``, called in turns
    ``repeat`` times each after one warm-up call each: both meet the same moments of a machine
    whose speed drifts, so their ratio does not depend on which ran first."""
    raw()
    await ours()
    raws: list[float] = []
    ourses: list[float] = []
    for _ in range(repeat):
        started = time.perf_counter()
        raw()
        raws.append(time.perf_counter() - started)
        started = time.perf_counter()
        await ours()
        ourses.append(time.perf_counter() - started)
    return statistics.median(raws), statistics.median(ourses)


async def beside_raw_duckdb(
    config: Path, question: Question, sql: str, params: Sequence[object], repeat: int
) -> tuple[float, float]:
    """The median wall times, in seconds, of ``sql`` run raw on the example's DuckDB file and
    of ``question`` asked of its service, in turns (:func:`interleaved_medians`). One process,
    one DuckDB instance: the raw connection shares the service's locked instance, so both read
    the same buffers under the same settings."""
    with duckdb.connect(str(config / DATABASE), read_only=True) as connection:
        async with serving(config) as service:
            return await interleaved_medians(
                lambda: connection.execute(sql, list(params)).fetchall(),
                lambda: ask(service, question),
                repeat,
            )
