"""What ``compile_question`` shows is what ``ask_metric`` runs, byte for byte, for every
question of the conformance pack on DuckDB and on PostgreSQL: the statement and its bound
values exactly as the source receives them (recorded by a source that wraps the real one), or
the same refusal or malformation before anything runs."""

from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import (
    Capacity,
    Classified,
    Described,
    Fetched,
    RowTexts,
    Source,
)
from sutura.core.nouns.dialect import Dialect
from sutura.core.text.escape import escape_text
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Answered, Declined, Malformed, Reply
from tests.conformance.conftest import Served
from tests.conformance.pack import PACK, Case, tuned
from tests.services import call, sources_of

pytestmark = [pytest.mark.postgres, pytest.mark.anyio]

Received = tuple[str, tuple[object, ...]]


class _Recording:
    """A real source that records each statement and its bound values as it receives them."""

    def __init__(self, real: Source, received: list[Received]) -> None:
        self._real = real
        self._received = received

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
        """Record what arrived, then fetch it from the real source."""
        self._received.append((statement, tuple(params)))
        return await self._real.fetch(statement, params, max_rows, deadline_at, texts)

    async def describe(self, statement: str, deadline_at: float) -> Described:
        """The real source's description."""
        return await self._real.describe(statement, deadline_at)

    async def close(self) -> None:
        """Nothing: the real source belongs to the module's service."""


def _recorded(service: Service, case: Case, received: list[Received]) -> Service:
    wrapped = {a: _Recording(s, received) for a, s in sources_of(service).items()}
    return tuned(service, case, PACK.today, wrapped)


def _shown_as_received(reply: Answered, received: Received) -> None:
    """The compiled reply's two halves show the received statement and values exactly."""
    statement, params = received
    structured: Any = reply.halves.structured_object()
    assert structured["sql"] == statement
    assert [p["position"] for p in structured["parameters"]] == list(range(1, len(params) + 1))
    assert [p["text"] for p in structured["parameters"]] == [escape_text(str(p)) for p in params]
    values = "\n".join(f"  ${i}: {escape_text(repr(p))}" for i, p in enumerate(params, 1))
    head = f"-- dialect: {structured['dialect']}\n{statement}\n\nparameters:\n"
    assert reply.halves.text.startswith(f"{head}{values or '  (none)'}\n\nplan:\n")


def _same_before_running(compiled: Reply, asked: Reply) -> None:
    """Refused or malformed before anything ran: the same refusal, or the same field."""
    match compiled:
        case Declined():
            assert isinstance(asked, Declined) and asked.value == compiled.value
            assert asked.halves == compiled.halves
        case Malformed():
            assert isinstance(asked, Malformed)
            assert (asked.field, asked.problem) == (compiled.field, compiled.problem)
        case _:
            raise AssertionError(f"compile_question came to {compiled!r}")


@pytest.mark.parametrize(
    "case", [c for c in PACK.questions if not c.closed], ids=lambda case: case.name
)
async def test_compile_shows_byte_for_byte_what_ask_metric_runs(served: Served, case: Case) -> None:
    for service in (served.duckdb, served.postgres):
        received: list[Received] = []
        recorded = _recorded(service, case, received)
        with anyio.fail_after(60):
            compiled = await call(recorded, Capability.COMPILE_QUESTION, case.question)
            assert received == []  # compiling runs nothing
            asked = await call(recorded, Capability.ASK_METRIC, case.question)
        if isinstance(compiled, Answered):
            assert len(received) == 1, received  # one plan, one statement
            _shown_as_received(compiled, received[0])
        else:
            assert received == []
            _same_before_running(compiled, asked)
