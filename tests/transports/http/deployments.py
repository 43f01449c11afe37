"""Deployments for the HTTP tests: settings documents as operators write them, and doubles.

:func:`write_deployment` writes a config dir (``base.yaml``, a catalog, a DuckDB file whose one
table groups into every corpus cell). :func:`assembled` starts the app from it through the same
path ``sutura serve`` takes. :func:`app_over` builds the app over a hand-made source double, for
the failures no real data system produces on demand.
"""

import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
from anyio.from_thread import start_blocking_portal
from litestar import Litestar
from returns.pipeline import is_successful

from sutura.boundary.loading import load
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import Capacity, Classified, Described, Fetched, RowTexts
from sutura.core.nouns.answer import Refused
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.refusal import Refusal
from sutura.core.settings import Settings
from sutura.core.text.escape import has_lone_surrogate
from sutura.core.text.untrusted import CELLS
from sutura.core.tool.capability import offered_by
from sutura.core.tool.codec import decode_outcome
from sutura.transports.cli.cmd_serve import mcp_of
from sutura.transports.http.app import build_app
from sutura.transports.http.serve import Started, started_app

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
FIRST_DAY = datetime.date(2024, 1, 1)
QUESTION: dict[str, Any] = {
    "metrics": ["units"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["label"],
}
METRIC_PROSE = "Units counted per label; every label is a hostile cell."
DIMENSION_PROSE = "The label each row carries."

SLOW_TABLE = "endless"
"""A view a model can name instead: billions of rows, so a question on it outlasts any deadline."""
_SLOW_ROWS = (
    "SELECT DATE '2024-01-01' AS day, 'x' || (r % 7) AS label, 1 AS units"
    " FROM range(100000000000) AS t(r)"
)

_MODEL = """---
kind: model
name: cells
source: main
table: {table}
columns: [day, label, units]
---
One row per hostile cell of the corpus.
"""

_METRIC = f"""---
kind: metric
name: units
model: cells
measure:
  simple:
    aggregate: sum
    column: units
time_column: day
grains: [day, year]
dimensions:
  - name: label
    column: label
    description: {DIMENSION_PROSE}
audience: open
---
{METRIC_PROSE}
"""


def carried_cells() -> list[str]:
    """Every corpus cell a data system can hold (a lone surrogate is not UTF-8)."""
    return [case.value for case in CELLS if not has_lone_surrogate(case.value)]


def write_deployment(
    target: Path,
    *,
    prose: str | None = None,
    token: str | None = TOKEN,
    table: str = "cells",
    settings: str = "",
) -> Path:
    """A config dir: catalog, data and a ``base.yaml`` (``prose`` absent means the default)."""
    (target / "catalog").mkdir(parents=True, exist_ok=True)
    (target / "catalog" / "cells.md").write_text(_MODEL.format(table=table), encoding="utf-8")
    (target / "catalog" / "units.md").write_text(_METRIC, encoding="utf-8")
    with duckdb.connect(str(target / "cells.duckdb")) as connection:
        data = "cells" if table == SLOW_TABLE else table
        connection.execute(f"CREATE TABLE {data} (day DATE, label VARCHAR, units INTEGER)")
        rows = [(FIRST_DAY, cell, i + 1) for i, cell in enumerate(carried_cells())]
        connection.executemany(f"INSERT INTO {data} VALUES (?, ?, ?)", rows)
        connection.execute(f"CREATE VIEW {SLOW_TABLE} AS {_SLOW_ROWS}")
    lines = ["catalog:", "  dir: catalog", "  version: http-1", "sources:", "  main:"]
    lines += ["    kind: duckdb", "    path: cells.duckdb"]
    lines += [
        "security:",
        "  identity: single-user",
        "  single_user_because: one user runs the tests",
    ]
    if token is not None:
        lines += [f"  access_token: {token}"]
    if prose is not None:
        lines += ["prompt:", f"  catalog_prose: {prose}"]
    (target / "base.yaml").write_text("\n".join(lines) + "\n" + settings, encoding="utf-8")
    return target


def environ(config: Path, **extra: str) -> dict[str, str]:
    """The environment a deployment reads: its config dir, and nothing else of this process."""
    return {"SUTURA_CONFIG_DIR": str(config), **extra}


@asynccontextmanager
async def assembled(
    config: Path, *, host: str | None = None, **environ_extra: str
) -> AsyncIterator[Started]:
    """The app started from ``config`` through the path ``sutura serve`` takes."""
    loaded = load(environ(config, **environ_extra))
    assert is_successful(loaded), loaded.failure()
    # Not under a cancel scope of its own: the app holds a task group (/mcp) for the block,
    # which must not outlive a scope entered around the opening alone. Opening and closing
    # are bounded by the sources' own deadlines.
    opened = loaded.unwrap()
    async with started_app(opened, mcp=mcp_of(opened), host=host) as started:
        assert is_successful(started), started.failure()
        yield started.unwrap()


@contextmanager
def assembled_in_portal(config: Path, **environ_extra: str) -> Iterator[Started]:
    """The app started from ``config``, for a synchronous test whose client runs its own loop
    (schemathesis): the service is opened and closed in one event loop, in a portal thread."""

    @asynccontextmanager
    async def opened() -> AsyncIterator[Started]:
        async with assembled(config, **environ_extra) as started:
            yield started

    with start_blocking_portal() as portal, portal.wrap_async_context_manager(opened()) as app:
        yield app


@asynccontextmanager
async def shared_client(
    tmp_path_factory: pytest.TempPathFactory, **deployment: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of one deployment shared by a module's tests that do not change it (they run
    in the module's one event loop, ``tests/conftest.py``'s ``anyio_backend``, where the
    service lives)."""
    config = write_deployment(tmp_path_factory.mktemp("shared"), **deployment)
    async with assembled(config) as started, client(started.app) as http:
        yield http


@asynccontextmanager
async def client(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    """An in-process client of ``app``."""
    asgi: Any = app  # litestar types its scope narrower than httpx declares
    transport = httpx.ASGITransport(app=asgi)
    json = {"Content-Type": "application/json"}  # what every JSON client sends with a body
    async with httpx.AsyncClient(
        transport=transport, base_url="http://localhost", headers=json
    ) as http:
        yield http


Receive = Callable[[], Awaitable[dict[str, Any]]]
"""An ASGI ``receive``: where a request's body comes from, a message at a time."""


async def posted(
    app: Litestar, headers: Sequence[tuple[bytes, bytes]], receive: Receive
) -> list[dict[str, Any]]:
    """``POST /v1/query`` with ``headers`` straight through the ASGI interface, its body read
    from ``receive``: the messages the app sent."""
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/query",
        "raw_path": b"/v1/query",
        "query_string": b"",
        "root_path": "",
        "headers": list(headers),
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
        "state": {},
    }
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asgi: Any = app  # litestar types its scope narrower than a dict
    await asgi(scope, receive, send)
    return sent


def refusal_of(response: httpx.Response) -> Refusal:
    """The refusal a response carries (the test fails if it carries anything else)."""
    outcome = decode_outcome(response.content).unwrap()
    assert isinstance(outcome, Refused), response.text[:300]
    return outcome.reason


Run = Callable[[str], Awaitable[list[list[object]]]]
"""A double's fetch: the statement in, rows out (or a driver's error raised)."""
Classify = Callable[[Exception], Classified | None]


class DoubleSource:
    """A source whose every fetch is whatever the test says: rows (as the data system would
    return them), or an error the test raises; records how often it was asked."""

    alias = "main"
    posture = "shared-service-user"
    dialect: Dialect = Dialect.DUCKDB
    stops_in_place = False

    def __init__(self, run: Run, *, classify: Classify | None = None) -> None:
        self._run = run
        self._classify = classify
        self.calls = 0

    def capacity(self) -> Capacity:
        """No bound of its own."""
        return Capacity()

    def classify(self, error: Exception) -> Classified | None:
        """The error table the test gave (a real driver's), else none: nothing is the
        source's error."""
        return None if self._classify is None else self._classify(error)

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """Count the call and hand it to the test's function."""
        self.calls += 1
        return Fetched([], await self._run(statement))

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """No model is checked against a double."""
        return Described([])

    async def close(self) -> None:
        """Nothing to release."""


def app_over(config: Path, source: DoubleSource, **changes: Any) -> Litestar:
    """The app over ``source`` with ``config``'s catalog and settings (``changes`` to the
    ``server`` section applied)."""
    loaded = load(environ(config)).unwrap()
    settings: Settings = loaded.loaded.settings
    if changes:
        import msgspec

        settings = msgspec.structs.replace(
            settings, server=msgspec.structs.replace(settings.server, **changes)
        )
    service = Service(
        settings=settings,
        pinned=loaded.pinned,
        sources={"main": source},
        runner=None,
        offered=offered_by(False),
        today=lambda: FIRST_DAY,
        instructions=loaded.instructions,
    )
    return build_app(service, settings)
