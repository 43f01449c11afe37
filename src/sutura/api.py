r"""The public Python API of sutura: ask certified questions, render both halves, decode them.

Nothing else in ``sutura`` is a public interface. Errors are values (``returns.result.Result``):
``.unwrap()`` a success, ``.failure()`` a failure, or test with ``is_successful``. A refusal is
an outcome, never an exception.

Rendering and decoding are pure and import no database, MCP or HTTP stack; :func:`example`,
:func:`load`, :func:`start` and :func:`ask` import those when first called.

Every result is one value rendered twice, and a value that strict UTF-8 cannot carry refuses
both halves (``value_not_representable``) rather than altering either:

>>> reason = Refusal(code=RefusalCode.METRIC_UNKNOWN, status=404, detail="Read the catalog.")
>>> render_text(Refused(reason=reason))
'refused (metric_unknown): Read the catalog.'
>>> render_structured(Refused(reason=reason))[:46]
b'{"outcome":"refusal","reason":{"code":"metric_'
>>> decode_text("refused (metric_unknown): Read the catalog.").unwrap() == Refused(reason=reason)
True
>>> provenance = Provenance(
...     time_zone="UTC",
...     definition_version="v1", definition_digest="ab",
...     metric_digests=[MetricDigest(metric="revenue", digest="cd")],
...     executed_as=[ExecutedAs(source="main", posture="shared-service-user")])
>>> answer = Answer(columns=["region", "revenue"], rows=[["a\tb", None]], provenance=provenance)
>>> print(render_text(answer))
region	revenue
a\tb	\N
\. rows: 1
definitions: v1 (digest ab)
  revenue: cd
time zone: UTC
read from main as: shared-service-user
>>> decode_structured(render_structured(answer)).unwrap() == answer
True
>>> render_text(Answer(columns=["m"], rows=[["\ud800"]], provenance=provenance))[:34]
'refused (value_not_representable):'

Asking, against the example catalog and data (what ``sutura example DIR`` writes):

>>> import tempfile
>>> scratch = tempfile.TemporaryDirectory()
>>> config = example(scratch.name, orders=2000)
>>> revenue = question({"metrics": ["revenue"], "grain": "year",
...                     "range": {"start": "2024-01-01", "end": "2025-01-01"}}).unwrap()
>>> unknown = question({"metrics": ["payroll"], "grain": "year",
...                     "range": {"start": "2024-01-01", "end": "2025-01-01"}}).unwrap()
>>> answered, refused = ask([revenue, unknown], config).unwrap()
>>> print(render_text(answered))  # doctest: +ELLIPSIS
period	revenue
2024-01-01	...
\. rows: 1
definitions: example-1 (digest ...)
  revenue: ...
time zone: UTC
read from main as: shared-service-user
computed at: ...Z
>>> render_text(refused)[:26]
'refused (metric_unknown): '
>>> scratch.cleanup()
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, assert_never

import msgspec
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Outcome, Provenance, Refused
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.question import (
    FilterEq,
    FilterIn,
    FilterNotIn,
    Last,
    Question,
    QuestionError,
    Range,
    Top,
    convert_question,
    decode_question_json,
)
from sutura.core.nouns.refusal import Refusal, RefusalCode
from sutura.core.nouns.values import Values, ValuesRequest
from sutura.core.text.decode import TextError
from sutura.core.text.decode import decode_outcome as _decode_text
from sutura.core.tool.arguments import Arguments
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.codec import CodecError, Halves, halves_of
from sutura.core.tool.codec import decode_outcome as _decode_structured
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
)
from sutura.transports.batch.convert import Target
from sutura.transports.batch.framing import Framed, split_records
from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.stream import Summary, render_stream

if TYPE_CHECKING:
    from sutura.boundary.loading import Loaded
    from sutura.boundary.service import Service

__all__ = [
    "Answer",
    "Answered",
    "Capability",
    "CodecError",
    "Declined",
    "ExecutedAs",
    "Failed",
    "FilterEq",
    "FilterIn",
    "FilterNotIn",
    "Framed",
    "Grain",
    "Halves",
    "Last",
    "Malformed",
    "MetricDigest",
    "NotOffered",
    "NotPermitted",
    "Outcome",
    "Provenance",
    "Question",
    "QuestionError",
    "Range",
    "RecordError",
    "RecordProblem",
    "Refusal",
    "RefusalCode",
    "Refused",
    "Reply",
    "Summary",
    "Target",
    "TextError",
    "Top",
    "Values",
    "ValuesRequest",
    "ask",
    "call",
    "decode_structured",
    "decode_text",
    "example",
    "load",
    "opened",
    "outcome_of",
    "question",
    "render_halves",
    "render_stream",
    "render_structured",
    "render_text",
    "split_rendered",
    "values_of",
]

Config = str | os.PathLike[str] | None


def _environ(config_dir: Config, environ: Mapping[str, str] | None) -> dict[str, str]:
    """``environ`` (the process environment by default), with ``SUTURA_CONFIG_DIR`` set."""
    merged = dict(os.environ if environ is None else environ)
    if config_dir is not None:
        merged["SUTURA_CONFIG_DIR"] = os.fspath(config_dir)
    return merged


def example(directory: str | os.PathLike[str], *, orders: int = 20_000) -> Path:
    """Write the example catalog, data and settings (``sutura example``); return the directory."""
    from sutura.boundary.example import write_example

    target = Path(directory)
    write_example(target, orders=orders)
    return target


def load(
    config_dir: Config = None, *, environ: Mapping[str, str] | None = None
) -> Result[Loaded, list[str]]:
    """Settings and the pinned catalog, validated together, without touching data.

    ``config_dir`` is ``SUTURA_CONFIG_DIR``; ``environ`` replaces the process environment (its
    ``SUTURA__A__B`` variables are settings). A failure is every problem as one sentence.
    """
    from sutura.boundary.loading import load as load_settings_and_catalog

    return load_settings_and_catalog(_environ(config_dir, environ))


@asynccontextmanager
async def opened(
    config_dir: Config = None,
    *,
    environ: Mapping[str, str] | None = None,
    anchors: bool = True,
) -> AsyncIterator[Result[Service, list[str]]]:
    """A service for the ``async with`` block (sources open, every model checked, every anchor
    reproduced unless ``anchors=False``), closed when the block ends — or every reason there is
    none. Ask it with :func:`call`::

        async with opened("example") as started:
            service = started.unwrap()
            reply = await call(service, Capability.ASK_METRIC, {...})
    """
    from sutura.boundary.loading import load as load_settings_and_catalog
    from sutura.boundary.startup import open_service

    loaded = load_settings_and_catalog(_environ(config_dir, environ))
    if not is_successful(loaded):
        yield Failure(loaded.failure())
        return
    async with open_service(loaded.unwrap(), anchors=anchors) as started:
        yield started


async def call(
    service: Service, capability: Capability, arguments: Arguments, *, deadline: float | None = None
) -> Reply:
    """One capability call as the Python API's caller (no identity: every scope).

    ``arguments`` may be JSON text, parsed JSON, or the capability's Struct (a :class:`Question`);
    ``deadline`` defaults to ``limits.deadline_seconds``.
    """
    caller = Caller.local(request_id=uuid.uuid4().hex, surface="api")
    return await service.call(capability, arguments, caller, deadline)


def outcome_of(reply: Reply) -> Outcome | QuestionError | Failed:
    """A question's reply as this API's value: the answer or refusal, the malformed question,
    or the failure (the cause is in the log).

    An answer's rows are plain lists here, so the value is what ``msgspec`` encodes (its JSON
    is the structured half); the reply itself holds them once, read from its structured half
    (:class:`~sutura.core.nouns.rows.WrittenRows`)."""
    match reply:
        case Answered(value=Answer(rows=list()) as answer):
            return answer
        case Answered(value=Answer() as answer):
            return msgspec.structs.replace(answer, rows=[list(row) for row in answer.rows])
        case Declined(value=Refused() as refused):
            return refused
        case Malformed():
            return QuestionError(field=reply.field, problem=reply.problem)
        case Failed():
            return reply
        case Answered() | Declined() | NotPermitted() | NotOffered():
            return Failed(capability=Capability.ASK_METRIC)
        case _:
            assert_never(reply)


def values_of(reply: Reply) -> Values | Refused | Malformed | Failed:
    """``list_values``'s reply as this API's value: the page of values, the refusal, the
    malformed request (field and problem), or the failure (the cause is in the log).

    Ask it with :func:`call`::

        reply = await call(service, Capability.LIST_VALUES,
                           ValuesRequest(metric="revenue", dimension="region", search="eu"))
        page = values_of(reply)  # Values: .values, .next_offset, .cut, .provenance
    """
    match reply:
        case Answered(value=Values() as page):
            return page
        case Declined(value=Refused() as refused):
            return refused
        case Malformed() | Failed():
            return reply
        case Answered() | Declined() | NotPermitted() | NotOffered():
            return Failed(capability=Capability.LIST_VALUES)
        case _:
            assert_never(reply)


def ask(
    questions: Iterable[Question],
    config_dir: Config = None,
    *,
    environ: Mapping[str, str] | None = None,
    anchors: bool = True,
) -> Result[list[Outcome | QuestionError | Failed], list[str]]:
    """Open a service once, ask every question in order, close it: one outcome per question.

    Synchronous, for scripts; inside an event loop use :func:`opened` and :func:`call`. An
    outcome is an answer or a refusal; a question found malformed is a :class:`QuestionError`;
    a call that broke is :class:`Failed` (its cause is in the log).
    """
    import anyio

    asked = list(questions)

    async def run() -> Result[list[Outcome | QuestionError | Failed], list[str]]:
        async with opened(config_dir, environ=environ, anchors=anchors) as started:
            if not is_successful(started):
                return Failure(started.failure())
            service = started.unwrap()
            replies = [await call(service, Capability.ASK_METRIC, item) for item in asked]
            return Success([outcome_of(reply) for reply in replies])

    return anyio.run(run)


def question(value: bytes | str | Mapping[str, object]) -> Result[Question, QuestionError]:
    """A question from JSON text or from parsed JSON values; unknown fields are refused."""
    if isinstance(value, bytes | str):
        return decode_question_json(value)
    return convert_question(dict(value))


def render_halves(outcome: Outcome) -> Halves:
    """Both halves of ``outcome`` (``.text``, ``.structured``), or of the refusal replacing both."""
    return halves_of(outcome)


def render_text(outcome: Outcome) -> str:
    """The text half: what a model reads (``docs/text-format.md`` is its grammar)."""
    return halves_of(outcome).text


def render_structured(outcome: Outcome) -> bytes:
    """The structured half: canonical JSON for programs."""
    return halves_of(outcome).structured


def decode_structured(data: bytes | str) -> Result[Outcome, CodecError]:
    """An answer or a refusal from its structured half; a failure names a JSON path."""
    return _decode_structured(data)


def decode_text(text: str) -> Result[Outcome, TextError]:
    """An answer or a refusal from its text half; a failure names a line."""
    return _decode_text(text)


def split_rendered(rendered: str) -> Result[list[Framed], TextError]:
    r"""The text halves of a ``sutura render`` output, each with its input record number.

    >>> split_rendered("\\. record 2\nrefused (metric_unknown): Read the catalog.\n").unwrap()
    [Framed(number=2, text='refused (metric_unknown): Read the catalog.')]
    """
    return split_records(rendered)
