"""The conformance pack: example questions as data, asked of a running service per engine.

``questions.json`` holds named question documents, each with the outcome it must have (``answer``
or a refusal code), optional limits to run it under, and whether the source is closed first.
Every question goes through the real startup path (settings document, catalog, source, anchors)
and the real :class:`Service`; only the clock is fixed, so ``range.last`` has one meaning.
"""

import datetime
from collections.abc import Mapping
from pathlib import Path

import msgspec

from sutura.api import outcome_of
from sutura.boundary.service import Service
from sutura.core.codec import halves_of
from sutura.core.outcome.answer import Answer, Outcome, Refused
from sutura.core.text.render import SOURCE_PREFIX
from sutura.core.tool.capability import Capability
from tests.services import call, serving

PACK_FILE = Path(__file__).with_name("questions.json")
EXTRA_CATALOG = Path(__file__).with_name("catalog")


class Case(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One example question and what it must come to."""

    name: str
    expect: str
    question: dict[str, object]
    limits: dict[str, int | float] = msgspec.field(default_factory=dict)
    closed: bool = False
    nulls: bool = False


class Pack(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The whole pack: a fixed ``today`` and the questions."""

    today: datetime.date
    questions: list[Case]


PACK = msgspec.json.decode(PACK_FILE.read_bytes(), type=Pack)


def environ(config_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment a deployment of the pack reads: its settings directory, its secrets."""
    return {"SUTURA_CONFIG_DIR": str(config_dir), **(extra or {})}


def tuned(service: Service, case: Case, today: datetime.date) -> Service:
    """``service`` under the case's limits and the pack's fixed ``today``, on the same sources."""
    settings = service.settings
    limits = msgspec.structs.replace(settings.limits, **case.limits)
    return Service(
        settings=msgspec.structs.replace(settings, limits=limits),
        pinned=service.pinned,
        sources=service.sources,
        runner=None,
        offered=frozenset({Capability.ASK_METRIC}),
        today=lambda: today,
        prompt="",
    )


async def ask_service(service: Service, case: Case, today: datetime.date) -> Outcome:
    """``case``'s outcome from ``service``: the one capability call every surface makes."""
    reply = await call(tuned(service, case, today), Capability.ASK_METRIC, case.question)
    outcome = outcome_of(reply)
    assert isinstance(outcome, Answer | Refused), outcome
    return outcome


async def ask(
    config_dir: Path, case: Case, today: datetime.date, extra: Mapping[str, str] | None = None
) -> Outcome:
    """Open the service configured in ``config_dir`` for ``case`` alone (its sources closed
    first when the case says so) and ask it."""
    async with serving(environ(config_dir, extra)) as service:
        if case.closed:
            for source in service.sources.values():
                await source.close()
        return await ask_service(service, case, today)


def text_half_without_source(outcome: Outcome) -> list[str]:
    """The lines of the text half, but for the ``read from`` line that names the engine."""
    lines = halves_of(outcome).text.split("\n")
    if isinstance(outcome, Answer):
        assert sum(line.startswith(SOURCE_PREFIX) for line in lines) == 1
    return [line for line in lines if not line.startswith(SOURCE_PREFIX)]


def has_null_cell(outcome: Outcome) -> bool:
    """Whether an answer holds at least one SQL NULL."""
    return isinstance(outcome, Answer) and any(c is None for row in outcome.rows for c in row)
