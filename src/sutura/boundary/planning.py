"""The one way a question becomes the plan that runs: resolved over what the caller sees, then
compiled for the dialect of the source holding its model.

Every path that plans goes through :meth:`Planner.plan`: ``ask_metric`` runs the statement it
returns, ``compile_question`` shows it (``sutura compile``, the console, ``POST /v1/compile``),
and ``sutura mcp`` warms the compiler with it before its first call. So what ``compile`` shows
is what ``ask_metric`` runs, by construction (``tests/conformance/test_compiled_is_run.py``
checks it for the whole conformance pack).

A resolution is a pure function of the view, the question and the day, so it is kept under all
three (:mod:`sutura.boundary.resolutions`); a compilation is kept by the compiler itself. A
hidden metric is refused exactly as a missing one: the view simply lacks it.
"""

import datetime
import zoneinfo
from collections.abc import Callable, Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.observe import Observers, Stage
from sutura.boundary.resolutions import Resolutions
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal
from sutura.core.nouns.source_facts import SourceFacts
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import Settings
from sutura.core.sql.planning import Plan, compile_resolved, unopened_facts

ViewKey = tuple[str, ...] | None
"""Which view a plan is made in (its audiences, sorted; None for every audience)."""


def catalog_zone(settings: Settings) -> datetime.tzinfo:
    """The zone every source's sessions run in (``catalog.time_zone``, a zone the system knows:
    checked at load)."""
    return zoneinfo.ZoneInfo(settings.catalog.time_zone)


def known_facts(settings: Settings) -> dict[str, SourceFacts]:
    """What is known of each source before startup opens it: its dialect, and the zone its
    sessions run in."""
    return unopened_facts(settings, catalog_zone(settings))


class Planner:
    """Plans questions over a deployment's settings, on the day ``today`` says."""

    def __init__(
        self,
        settings: Settings,
        today: Callable[[], datetime.date],
        observers: Observers | None = None,
        sources: Callable[[], Mapping[str, SourceFacts]] | None = None,
    ) -> None:
        self._settings = settings
        self._today = today
        known = known_facts(settings)
        self._sources = (lambda: known) if sources is None else sources
        """What is known of each source (its dialect, the columns it holds as ``CHAR(n)``), as
        startup has learnt it; without it, each source's dialect alone."""
        self._observers = Observers() if observers is None else observers
        self._resolutions = Resolutions()

    def plan(
        self, question: Question, seen: PinnedDefinitions, view: ViewKey
    ) -> Result[Plan, Refusal | QuestionError]:
        """``question`` resolved over ``seen`` (the definitions of view ``view``) and
        compiled, or the refusal or malformation that stops it."""
        settings = self._settings
        with self._observers.stage(Stage.RESOLVE):
            today = self._today()
            resolving = self._resolutions.resolved(
                view,
                question,
                today,
                lambda: resolve_question(question, seen, settings.limits, today),
            )
        if not is_successful(resolving):
            return Failure(resolving.failure())
        resolved = resolving.unwrap()
        with self._observers.stage(Stage.COMPILE):
            compiled = compile_resolved(resolved, seen, self._sources())
        return Success((resolved, compiled))
