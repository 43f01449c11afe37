"""How the command line presents results: text halves by default, structured halves on request."""

import datetime
import sys

import msgspec
from returns.pipeline import is_successful

from sutura.boundary.answering import Service
from sutura.boundary.startup import Loaded
from sutura.core.catalog.view import CatalogView
from sutura.core.codec import catalog_halves, halves_of, outcome_halves
from sutura.core.outcome.answer import Answer, Outcome
from sutura.core.outcome.refusal import Refusal
from sutura.core.question.model import QuestionError
from sutura.core.sql.compile import CompiledQuery
from sutura.core.text.escape import escape_text
from sutura.core.text.render import render_refusal
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, emit


def today() -> datetime.date:
    """Today in UTC (what ``range.last`` counts back from)."""
    return datetime.datetime.now(datetime.UTC).date()


def check_summary(service: Service) -> str:
    """What ``sutura check`` confirms."""
    pinned = service.pinned
    anchored = sum(1 for m in pinned.catalog.metrics if m.anchor is not None)
    sources = ", ".join(
        f"{escape_text(a)} ({s.dialect})" for a, s in sorted(service.sources.items())
    )
    return "\n".join(
        [
            "settings: ok",
            f"catalog: {len(pinned.catalog.metrics)} metrics, {len(pinned.catalog.models)} models, "
            f"{len(pinned.catalog.relationships)} relationships",
            f"definitions: {escape_text(pinned.version)} (digest {pinned.digest})",
            f"sources: {sources or 'none'}",
            f"anchors: {anchored} reproduced",
        ]
    )


def catalog(loaded: Loaded, *, as_json: bool) -> str:
    """The catalog as an agent reads it, honouring ``prompt.catalog_prose``."""
    view = CatalogView.of(loaded.pinned, loaded.loaded.settings.prompt.catalog_prose)
    halves = catalog_halves(view)
    if not is_successful(halves):
        return render_refusal(halves.failure())
    both = halves.unwrap()
    return msgspec.json.format(both.structured).decode() if as_json else both.text


def describe_metric(loaded: Loaded, name: str) -> str | None:
    """One metric's whole pinned definition (operator view), or None when it does not exist."""
    metric = loaded.pinned.catalog.metric(name)
    if metric is None:
        return None
    document = {
        "definition_version": loaded.pinned.version,
        "metric_digest": loaded.pinned.metric_digests[metric.name],
        "definition": msgspec.to_builtins(metric),
    }
    return escape_multiline(msgspec.json.format(msgspec.json.encode(document)).decode())


def escape_multiline(text: str) -> str:
    """Every line of ``text`` escaped (JSON already escapes controls; this catches the rest)."""
    return "\n".join(escape_text(line) for line in text.split("\n"))


def compiled(query: CompiledQuery) -> str:
    """Statement, parameters and plan."""
    params = "\n".join(f"  ${i}: {escape_text(repr(p))}" for i, p in enumerate(query.params, 1))
    plan = "\n".join(f"  {escape_text(line)}" for line in query.plan)
    head = f"-- dialect: {query.dialect}\n{query.sql}"
    return f"{head}\n\nparameters:\n{params or '  (none)'}\n\nplan:\n{plan}"


def print_plan_failure(problem: Refusal | QuestionError) -> int:
    """Report why a question does not compile."""
    if isinstance(problem, QuestionError):
        print(f"sutura: {escape_text(problem.sentence())}", file=sys.stderr)
        return EXIT_USAGE
    emit(render_refusal(problem))
    return EXIT_REFUSED


def print_outcome(outcome: Outcome, *, as_json: bool) -> int:
    """Print one half of ``outcome`` (both built from the one value) and return the exit code."""
    rendered = outcome_halves(outcome)
    halves = rendered.unwrap() if is_successful(rendered) else halves_of(outcome)
    emit(halves.structured.decode() if as_json else halves.text)
    answered = is_successful(rendered) and isinstance(outcome, Answer)
    return EXIT_OK if answered else EXIT_REFUSED
