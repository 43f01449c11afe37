"""How the command line presents what is not a reply: the check summary, a metric's definition
as pinned, and a compiled plan."""

import sys

import msgspec
from returns.pipeline import is_successful
from returns.result import Result

from sutura.boundary.loading import Loaded, utc_today
from sutura.boundary.service import Service
from sutura.core.definitions.knowledge import means_metric
from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.sql.planning import Plan, plan_question
from sutura.core.text.escape import escape_text, is_escaped
from sutura.core.text.render import render_refusal
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, emit


def check_summary(service: Service) -> str:
    """What ``sutura check`` confirms."""
    pinned = service.pinned
    catalog = pinned.catalog
    anchored = sum(1 for m in catalog.metrics if m.anchor is not None)
    sources = ", ".join(
        f"{escape_text(a)} ({s.dialect})" for a, s in sorted(service.sources.items())
    )
    knowledge = catalog.knowledge
    return "\n".join(
        [
            "settings: ok",
            f"catalog: {len(catalog.metrics)} metrics, {len(catalog.models)} models, "
            f"{len(catalog.relationships)} relationships",
            "knowledge: "
            + ", ".join(
                [
                    _counted(len(knowledge.glossary), "glossary term", "glossary terms"),
                    _counted(len(knowledge.caveats), "caveat", "caveats"),
                    _counted(len(knowledge.not_defined), "term not defined", "terms not defined"),
                    _counted(len(knowledge.examples), "worked question", "worked questions"),
                ]
            ),
            f"definitions: {escape_text(pinned.version)} (digest {pinned.digest})",
            f"time zone: {escape_text(pinned.time_zone)}",
            f"sources: {sources or 'none'}",
            f"models: {len(catalog.models)} checked against their sources",
            f"anchors: {anchored} reproduced",
        ]
    )


def _counted(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def describe_metric(loaded: Loaded, name: str) -> str | None:
    """One metric's whole pinned definition (operator view) with the caveats about it, the
    glossary terms that mean it and the worked questions that ask it, or None when it does not
    exist.

    JSON escapes every control character already; what JSON leaves raw and the escape set
    holds (an invisible or reordering character) is written as a JSON ``\\u`` escape too, so
    the output stays valid JSON of the same value and a line break reads ``\\n`` once.
    """
    catalog = loaded.pinned.catalog
    metric = catalog.metric(name) or catalog.derived_metric(name)
    if metric is None:
        return None
    knowledge = catalog.knowledge
    document = {
        "definition_version": loaded.pinned.version,
        "metric_digest": loaded.pinned.metric_digests[metric.name],
        "definition": msgspec.to_builtins(metric),
        "caveats": msgspec.to_builtins(knowledge.caveats_of(metric.name)),
        "glossary": msgspec.to_builtins(
            [g for g in knowledge.glossary if means_metric(g.means) == metric.name]
        ),
        "examples": msgspec.to_builtins(
            [e for e in knowledge.examples if metric.name in e.question.metrics]
        ),
    }
    text = msgspec.json.format(msgspec.json.encode(document)).decode()
    return "".join(_json_escaped(ch) if not ch.isascii() and is_escaped(ch) else ch for ch in text)


def _json_escaped(ch: str) -> str:
    """``ch`` as JSON's ``\\uXXXX`` (a surrogate pair beyond the BMP)."""
    units = ch.encode("utf-16-be", "surrogatepass")
    return "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))


def plan_of(loaded: Loaded, question: Question) -> Result[Plan, Refusal | QuestionError]:
    """The question resolved and compiled as ``query`` would, touching no data."""
    return plan_question(question, loaded.pinned, loaded.loaded.settings, utc_today())


def compiled(query: CompiledQuery) -> str:
    """Statement, parameters and plan."""
    params = "\n".join(f"  ${i}: {escape_text(repr(p))}" for i, p in enumerate(query.params, 1))
    plan = "\n".join(f"  {escape_text(line)}" for line in query.plan)
    head = f"-- dialect: {query.dialect}\n{query.sql}"
    return f"{head}\n\nparameters:\n{params or '  (none)'}\n\nplan:\n{plan}"


def print_plan(planned: Result[Plan, Refusal | QuestionError]) -> int:
    """Print the plan, or why the question does not compile; the exit code."""
    if is_successful(planned):
        emit(compiled(planned.unwrap()[1]))
        return EXIT_OK
    problem = planned.failure()
    if isinstance(problem, QuestionError):
        print(f"sutura: {escape_text(problem.sentence())}", file=sys.stderr)
        return EXIT_USAGE
    emit(render_refusal(problem))
    return EXIT_REFUSED
