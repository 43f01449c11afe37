"""The seams: where the contract needs a reply no engine gives on demand, and only there.

Every in-process surface opens its service through ``sutura.boundary.startup.open_service``,
which opens each source with ``open_source`` and the raw runner with ``open_raw``. While
:func:`seams` is active, those two wrap what they open — for a deployment whose environment
sets :data:`~tests.contract.deployment.SEAMS_VAR`, and nothing else:

- the source ``broken``: its fetch raises an error no driver's error table knows, which is what
  a bug looks like (``Failed``);
- the DuckDB source ``spare``: closed after startup (its first fetch closes the real connection
  and then asks it), so the real driver says the connection is closed and DuckDB's own error
  table classifies that (``source_unavailable``); PostgreSQL's ``spare`` needs no seam, its
  ``dying`` view kills its own backend;
- the raw runner, for two statements only: :data:`LONE_SURROGATE_STATEMENT` returns a cell
  holding a lone surrogate, which no engine can store (``value_not_representable``); on DuckDB,
  :data:`DYING_STATEMENT` raises DuckDB's own ``ConnectionException``, classified by DuckDB's
  error table (``source_unavailable``; PostgreSQL runs it for real).

Everything else — startup, the model checks, every other statement — is the real source.
Spawned processes are never seamed.
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final

import duckdb
import pytest
from returns.result import Result

from sutura.boundary import startup
from sutura.boundary.sources.context import SourceContext
from sutura.boundary.sources.open import open_raw, open_source
from sutura.boundary.sources.skeleton import (
    Capacity,
    Classified,
    Described,
    Fetched,
    RawRunner,
    Rejected,
    RowTexts,
    Source,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.settings import DuckDBSourceSettings, SourceSettings
from tests.contract.deployment import SEAMS_VAR

CANARY: Final = "canary_contract_4b1d"
"""In the error the ``broken`` source raises: it must reach the log and never a caller."""
LONE_SURROGATE_STATEMENT: Final = "SELECT cell FROM lone_surrogates"
DYING_STATEMENT: Final = "SELECT * FROM dying"


class _Seamed:
    """A real source, with the one fault its alias stands for."""

    def __init__(self, real: Source, *, closes: bool) -> None:
        self._real = real
        self._closes = closes
        self._closed = False

    @property
    def alias(self) -> str:
        """The real source's alias."""
        return self._real.alias

    @property
    def posture(self) -> str:
        """The real source's posture."""
        return self._real.posture

    @property
    def stops_in_place(self) -> bool:
        """The real source's."""
        return self._real.stops_in_place

    @property
    def dialect(self) -> Dialect:
        """The real source's dialect."""
        return self._real.dialect

    def capacity(self) -> Capacity:
        """The real source's capacity."""
        return self._real.capacity()

    def classify(self, error: Exception) -> Classified | None:
        """The real driver's error table."""
        return self._real.classify(error)

    async def fetch(
        self,
        statement: str,
        params: Sequence[object],
        max_rows: int,
        deadline_at: float,
        texts: RowTexts | None = None,
    ) -> Fetched:
        """Close the real source first (``spare``), or break (``broken``)."""
        if not self._closes:
            raise RuntimeError(f"{CANARY}: a bug no error table knows")
        if not self._closed:
            self._closed = True
            await self._real.close()
        return await self._real.fetch(statement, params, max_rows, deadline_at, texts)

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The real source's columns: startup's model check passes."""
        return await self._real.describe(statement, deadline_at)

    async def close(self) -> None:
        """Close the real source."""
        await self._real.close()


class _SeamedRunner:
    """A real raw runner, with two statements answered by the seam."""

    def __init__(self, real: RawRunner, *, duckdb_kind: bool) -> None:
        self._real = real
        self._duckdb = duckdb_kind

    @property
    def alias(self) -> str:
        """The real runner's alias."""
        return self._real.alias

    @property
    def grace_seconds(self) -> float:
        """The real runner's grace."""
        return self._real.grace_seconds

    def classify(self, error: Exception) -> Classified | None:
        """The real driver's error table."""
        return self._real.classify(error)

    async def fetch_statement(
        self, statement: str, max_rows: int, deadline_at: float
    ) -> Fetched | Rejected:
        """The seam's two statements; the real runner for every other."""
        if statement == LONE_SURROGATE_STATEMENT:
            return Fetched(["cell"], [["\ud800"]])
        if statement == DYING_STATEMENT and self._duckdb:
            raise duckdb.ConnectionException("Connection Error: Connection already closed!")
        return await self._real.fetch_statement(statement, max_rows, deadline_at)

    async def close(self) -> None:
        """Close the real runner."""
        await self._real.close()


def _seamed_source(
    alias: str, settings: SourceSettings, source: Source, context: SourceContext
) -> Source:
    if context.environ.get(SEAMS_VAR) != "on":
        return source
    if alias == "broken":
        return _Seamed(source, closes=False)
    if alias == "spare" and isinstance(settings, DuckDBSourceSettings):
        return _Seamed(source, closes=True)
    return source


@contextmanager
def seams() -> Iterator[None]:
    """The seams, in effect for the block (for seamed deployments only)."""

    async def seamed_source(
        alias: str, settings: SourceSettings, context: SourceContext
    ) -> Result[Source, str]:
        opened = await open_source(alias, settings, context)
        return opened.map(lambda source: _seamed_source(alias, settings, source, context))

    async def seamed_raw(
        alias: str, settings: SourceSettings, context: SourceContext
    ) -> Result[RawRunner, str]:
        opened = await open_raw(alias, settings, context)
        if context.environ.get(SEAMS_VAR) != "on":
            return opened
        duckdb_kind = isinstance(settings, DuckDBSourceSettings)
        return opened.map(lambda runner: _SeamedRunner(runner, duckdb_kind=duckdb_kind))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(startup, "open_source", seamed_source)
        patch.setattr(startup, "open_raw", seamed_raw)
        yield
