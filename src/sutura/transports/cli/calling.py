"""One command, one event loop, one service: how every command that answers makes its call.

:func:`call_once` loads the settings and the catalog, opens the service for the block (in the
one event loop the command runs), makes the one capability call as the local caller, closes the
service, and maps the reply to the command line: the text half (or, with ``--json``, the
structured half) on stdout and the exit code — ``0`` answered, ``1`` refused or failed, ``2``
malformed arguments (usage).
"""

import sys
import uuid
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar, assert_never

import anyio
from returns.pipeline import is_successful

from sutura.boundary.composing import composing
from sutura.boundary.loading import Loaded, SettingsRead
from sutura.boundary.service import Service
from sutura.boundary.settings_files import LoadedSettings
from sutura.boundary.sources.ahead import OpenedAhead
from sutura.boundary.startup import open_service
from sutura.core.catalog.view.catalog import CatalogBody
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.values import Values
from sutura.core.question.explain import dimension_help
from sutura.core.raw.outcome import RawRows
from sutura.core.sql.shown import ShownStatement
from sutura.core.text.escape import escape_text
from sutura.core.tool.arguments import Arguments, decode_question
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import (
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
    Reply,
)
from sutura.transports.cli.formats import OutputFormat, rows_view
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, emit, report
from sutura.transports.cli.wiring import Wiring

T = TypeVar("T")

NOT_ENABLED: Final = NotOffered(capability=Capability.RUN_SQL).sentence()


def with_service(
    wiring: Wiring,
    use: Callable[[Loaded, Service], Awaitable[T]],
    *,
    anchors: bool,
    data: bool = True,
    without_data: str | None = None,
) -> T | int:
    """``use(loaded, service)`` inside one event loop, or the exit code after reporting why
    there is no service. With ``without_data``, a service whose sources do not open is
    reported on stderr, followed by that sentence, and replaced by one that opens none.

    The DuckDB files among the sources are opened ahead, beside the reading of the catalog
    (:mod:`sutura.boundary.sources.ahead`). Collection is paused while the catalog is loaded,
    the service opened and the one call made, as a server composes
    (:mod:`sutura.boundary.composing`): a catalog of 2,000 metrics is hundreds of thousands of
    objects that a collection only finds alive (``sutura check`` spent 0.46 s of its 2.8 s of
    CPU in collections, ``sutura catalog`` 0.23 s of 1.6 s), and the command ends once its call
    is made (``sutura catalog``'s call, where each metric's data is and the page, ran 88
    collections; its peak memory grew by 2 MB without them)."""

    async def main() -> T | list[str]:
        ahead = OpenedAhead()
        try:
            with composing():
                loaded = wiring.load(_opening(ahead, wiring) if data else None)
                if not is_successful(loaded):
                    return loaded.failure()
                ahead.wait()
                async with open_service(loaded.unwrap(), anchors=anchors, data=data) as started:
                    ahead.close()  # the sources' own connections hold what it opened
                    if is_successful(started):
                        return await use(loaded.unwrap(), started.unwrap())
                    if without_data is None:
                        return started.failure()
                    problems = started.failure()
        finally:
            ahead.close()
        for line in [*problems, without_data]:
            print(f"sutura: {line}", file=sys.stderr)
        async with open_service(loaded.unwrap(), anchors=False, data=False) as offline:
            return await use(loaded.unwrap(), offline.unwrap())

    result: T | list[str] = anyio.run(main)
    return report(result) if isinstance(result, list) else result


def _opening(ahead: OpenedAhead, wiring: Wiring) -> SettingsRead:
    """Once the settings are read, the DuckDB files among their sources opened ``ahead``,
    beside the reading of the catalog."""

    def opening(settings: LoadedSettings) -> None:
        ahead.start(settings.settings.sources, settings.source_context(wiring.environ))

    return opening


Explain = Callable[[Loaded, Reply], list[str]]
"""What a person reads on stderr beside a reply (the halves stay the reply's own)."""


def call_once(
    wiring: Wiring,
    capability: Capability,
    arguments: Arguments,
    *,
    as_json: bool = False,
    fmt: OutputFormat | None = None,
    anchors: bool = True,
    data: bool = True,
    explain: Explain | None = None,
    without_data: str | None = None,
) -> int:
    """Make one capability call and print its reply, then what ``explain`` says about it on
    stderr; the exit code."""

    async def use(loaded: Loaded, service: Service) -> tuple[Reply, list[str]]:
        caller = Caller.local(request_id=uuid.uuid4().hex, surface="cli")
        reply = await service.call(capability, arguments, caller)
        return reply, [] if explain is None else explain(loaded, reply)

    called = with_service(wiring, use, anchors=anchors, data=data, without_data=without_data)
    if isinstance(called, int):
        return called
    reply, notes = called
    code = print_reply(reply, as_json=as_json, fmt=fmt)
    for line in notes:
        print(f"sutura: {line}", file=sys.stderr)
    return code


def explain_dimensions(arguments: Arguments) -> Explain:
    """For ``query``: a dimension refusal explained with what the metric lists instead."""

    def explain(loaded: Loaded, reply: Reply) -> list[str]:
        match reply:
            case Declined(value=Refused(reason=reason)):
                question = decode_question(arguments)
                if not is_successful(question):
                    return []
                return dimension_help(question.unwrap(), loaded.pinned.catalog, reason.code)
            case _:
                return []

    return explain


def print_reply(reply: Reply, *, as_json: bool = False, fmt: OutputFormat | None = None) -> int:
    """A reply on the command line: one half (or a view of its rows) on stdout, or a problem
    on stderr; the exit code. ``fmt`` wins over ``as_json`` (the structured half or the text)."""
    fmt = fmt or (OutputFormat.JSON if as_json else OutputFormat.TEXT)
    as_json = fmt is OutputFormat.JSON
    match reply:
        case Answered():
            view = _view(reply, fmt)
            if view is None:
                view = reply.halves.structured.decode() if as_json else reply.halves.text
            emit(view)
            return EXIT_OK
        case Declined():
            emit(reply.halves.structured.decode() if as_json else reply.halves.text)
            return EXIT_REFUSED
        case Malformed():
            print(f"sutura: {escape_text(reply.sentence())}", file=sys.stderr)
            return EXIT_USAGE
        case NotOffered():
            return report(
                [NOT_ENABLED if reply.capability is Capability.RUN_SQL else reply.sentence()]
            )
        case NotPermitted():
            return report([reply.sentence()])
        case Failed():
            return report([reply.sentence()])
        case _:
            assert_never(reply)


def _view(reply: Answered, fmt: OutputFormat) -> str | None:
    """Rows as a table or CSV; None for a half, or for a value that has no rows."""
    value = reply.value
    match value:
        case Answer() | RawRows():
            return rows_view(fmt, reply.halves.text, value.columns, value.rows)
        case Values():
            rows = [[cell] for cell in value.values]
            return rows_view(fmt, reply.halves.text, [value.dimension], rows)
        case CatalogBody() | ShownStatement():
            return None
        case _:
            assert_never(value)
