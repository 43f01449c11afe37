"""The conformance pack: example questions as data, asked of a running service per engine.

``questions.json`` holds named question documents, each with the outcome it must have (``answer``
or a refusal code), optional limits to run it under, and whether the source is closed first.
Every question goes through the real startup path (settings document, catalog, source, anchors)
and the real :class:`Service`; only the clock is fixed, so ``range.last`` has one meaning.
"""

import datetime
from pathlib import Path

import msgspec
from returns.pipeline import is_successful

from sutura.boundary.answering import Service
from sutura.boundary.startup import start
from sutura.core.codec import halves_of
from sutura.core.outcome.answer import Answer, Outcome
from sutura.core.question.model import QuestionError, decode_question_json
from sutura.core.text.render import SOURCE_PREFIX

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


async def ask(config_dir: Path, case: Case, today: datetime.date) -> Outcome:
    """Start the service configured in ``config_dir`` and ask ``case``'s question."""
    started = await start({"SUTURA_CONFIG_DIR": str(config_dir)})
    assert is_successful(started), started.failure()
    service = started.unwrap()
    try:
        limits = msgspec.structs.replace(service.settings.limits, **case.limits)
        tuned = Service(
            settings=msgspec.structs.replace(service.settings, limits=limits),
            pinned=service.pinned,
            sources=service.sources,
            today=lambda: today,
        )
        if case.closed:
            await service.close()
        question = decode_question_json(msgspec.json.encode(case.question))
        assert is_successful(question), question.failure()
        outcome = await tuned.ask(question.unwrap())
    finally:
        await service.close()
    assert not isinstance(outcome, QuestionError), outcome.sentence()
    return outcome


def text_half_without_source(outcome: Outcome) -> list[str]:
    """The lines of the text half, but for the ``read from`` line that names the engine."""
    lines = halves_of(outcome).text.split("\n")
    if isinstance(outcome, Answer):
        assert sum(line.startswith(SOURCE_PREFIX) for line in lines) == 1
    return [line for line in lines if not line.startswith(SOURCE_PREFIX)]


def has_null_cell(outcome: Outcome) -> bool:
    """Whether an answer holds at least one SQL NULL."""
    return isinstance(outcome, Answer) and any(c is None for row in outcome.rows for c in row)
