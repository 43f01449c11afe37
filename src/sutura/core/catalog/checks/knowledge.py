"""Knowledge checked across the catalog: every reference resolves, every word is used once.

- A glossary term ``means`` a metric that exists, and (for ``{metric, dimension, value}``) a
  dimension that metric lists, with the value among its allowed values.
- A caveat is ``about`` metrics that exist.
- An example's question is resolved against the catalog exactly as ``ask_metric`` resolves
  one, under the deployment's limits: a question that would be refused or is malformed is a
  load error, never a worked example.
- Words are compared case folded, runs of spaces as one: no term, phrase or synonym appears
  twice in the glossary or twice among the terms not defined, none is both defined and not,
  and no phrase not defined is a metric's name (``_`` read as a space). Caveat and example
  names are unique.
"""

import datetime
from collections.abc import Iterator, Mapping, Sequence
from typing import assert_never

from returns.pipeline import is_successful

from sutura.core.catalog.document.front_matter import nearest_line
from sutura.core.catalog.document.knowledge import same_words
from sutura.core.catalog.document.parse import Document
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Knowledge,
    KnowledgeDocument,
    MeansMetric,
    MeansValue,
    NotDefined,
    WorkedExample,
)
from sutura.core.definitions.model import Catalog, Derived, Metric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.definitions.tree import leaves
from sutura.core.nouns.question import QuestionError
from sutura.core.nouns.refusal import Refusal
from sutura.core.question.resolve import resolve_question
from sutura.core.settings import LimitsSettings

Found = Sequence[tuple[Document, KnowledgeDocument]]
Metrics = Mapping[str, tuple[Document, Metric]]
DerivedMetrics = Mapping[str, tuple[Document, Derived]]


def knowledge_errors(
    found: Found,
    metrics: Metrics,
    limits: LimitsSettings,
    today: datetime.date,
    derived: DerivedMetrics | None = None,
) -> Iterator[CatalogError]:
    """Every problem of the knowledge documents ``found``, against the catalog's metrics
    (derived metrics among them: knowledge may be about one as about any metric)."""
    derived = derived or {}
    words = _Words(metrics)
    names: dict[tuple[str, str], Document] = {}
    only = _metrics_only(metrics, derived)  # once: every worked question resolves against it
    for doc, item in found:
        match item:
            case GlossaryTerm():
                yield from words.add(doc, item, defined=True)
                yield from _means_errors(doc, item, metrics, derived)
            case Caveat():
                yield from _name_error(names, doc, "caveat", item.name)
                for i, name in enumerate(item.about):
                    if name not in metrics and name not in derived:
                        yield doc.error(f"about[{i}].metric", _no_metric(name))
            case NotDefined():
                yield from words.add(doc, item, defined=False)
            case WorkedExample():
                yield from _name_error(names, doc, "example", item.name)
                yield from _example_errors(doc, item, only, limits, today)
            case _:
                assert_never(item)


def collected(found: Found) -> Knowledge:
    """The knowledge of a checked catalog, each kind sorted by its name, term or phrase."""
    glossary: list[GlossaryTerm] = []
    caveats: list[Caveat] = []
    not_defined: list[NotDefined] = []
    examples: list[WorkedExample] = []
    for _, item in found:
        match item:
            case GlossaryTerm():
                glossary.append(item)
            case Caveat():
                caveats.append(item)
            case NotDefined():
                not_defined.append(item)
            case WorkedExample():
                examples.append(item)
            case _:
                assert_never(item)
    return Knowledge(
        glossary=tuple(sorted(glossary, key=lambda g: g.term)),
        caveats=tuple(sorted(caveats, key=lambda c: c.name)),
        not_defined=tuple(sorted(not_defined, key=lambda n: n.phrase)),
        examples=tuple(sorted(examples, key=lambda e: e.name)),
    )


def _no_metric(name: str) -> str:
    return f"no metric is called {quoted(name)}"


def _where(doc: Document, key: str) -> str:
    return f"{quoted(doc.file)} line {nearest_line(doc.lines, key)}"


class _Words:
    """Every word seen so far: defined (glossary) or not, and the metrics' names."""

    def __init__(self, metrics: Metrics) -> None:
        self.seen: dict[bool, dict[str, tuple[Document, str]]] = {True: {}, False: {}}
        # A user says "paid share" for paid_share.
        self.metric_names = {same_words(name.replace("_", " ")): name for name in metrics}

    def add(
        self, doc: Document, item: GlossaryTerm | NotDefined, *, defined: bool
    ) -> Iterator[CatalogError]:
        """Add the document's words; a problem for each one seen before or contradicted."""
        own, other = self.seen[defined], self.seen[not defined]
        what = "glossary" if defined else "terms not defined"
        for key, phrase in _words(item):
            words = same_words(phrase)
            if words in own:
                where = _where(*own[words])
                yield doc.error(key, f"{quoted(phrase)} is already in the {what}, in {where}")
                continue
            own[words] = (doc, key)
            if words in other:
                problem = (
                    f"{quoted(phrase)} is both defined in the glossary and recorded as not "
                    f"defined (also in {_where(*other[words])}); a word is one or the other"
                )
                yield doc.error(key, problem)
            if not defined and words in self.metric_names:
                metric = quoted(self.metric_names[words])
                yield doc.error(key, f"the metric {metric} is called this; it is defined")


def _words(item: GlossaryTerm | NotDefined) -> Iterator[tuple[str, str]]:
    """(key, phrase) for the document's own phrase and each synonym."""
    match item:
        case GlossaryTerm():
            yield "term", item.term
        case NotDefined():
            yield "phrase", item.phrase
        case _:
            assert_never(item)
    for i, synonym in enumerate(item.synonyms):
        yield f"synonyms[{i}]", synonym


def _name_error(
    names: dict[tuple[str, str], Document], doc: Document, kind: str, name: str
) -> Iterator[CatalogError]:
    first = names.setdefault((kind, name), doc)
    if first is not doc:
        where = _where(first, "name")
        yield doc.error("name", f"another {kind} is already called {quoted(name)}, in {where}")


def _means_errors(
    doc: Document, term: GlossaryTerm, metrics: Metrics, derived: DerivedMetrics
) -> Iterator[CatalogError]:
    means = term.means
    found = metrics.get(means.metric)
    combined = derived.get(means.metric)
    if found is None and combined is None:
        yield doc.error("means.metric", _no_metric(means.metric))
        return
    match means:
        case MeansMetric():
            return
        case MeansValue():
            if found is not None:
                yield from _value_errors(doc, found[1], means)
            elif combined is not None:
                yield from _derived_value_errors(doc, combined[1], means, metrics, derived)
        case _:
            assert_never(means)


def _derived_value_errors(
    doc: Document,
    derived: Derived,
    means: MeansValue,
    metrics: Metrics,
    every_derived: DerivedMetrics,
) -> Iterator[CatalogError]:
    """A value of a dimension the derived metric lists, allowed by each metric of its tree."""
    if means.dimension not in derived.dimensions:
        named = f"{quoted(derived.name)} has no dimension {quoted(means.dimension)}"
        yield doc.error("means.dimension", f"the metric {named}")
        return
    plain = {name: metric for name, (_, metric) in metrics.items()}
    combined = {name: found for name, (_, found) in every_derived.items()}
    for leaf in leaves(plain.get, combined.get, [derived.name]):
        problems = list(_value_errors(doc, leaf, means))
        if problems:
            yield problems[0]
            return  # one sentence is enough; the others are checked once this is fixed


def _value_errors(doc: Document, metric: Metric, means: MeansValue) -> Iterator[CatalogError]:
    dimension = metric.dimension(means.dimension)
    if dimension is None:
        named = f"{quoted(metric.name)} has no dimension {quoted(means.dimension)}"
        yield doc.error("means.dimension", f"the metric {named}")
    elif dimension.values is None:
        problem = (
            f"the dimension {quoted(dimension.name)} of {quoted(metric.name)} lists no values "
            "(any value may be filtered on), so a term cannot mean one of them"
        )
        yield doc.error("means.dimension", problem)
    elif means.value not in dimension.values:
        named = quoted(dimension.name)
        yield doc.error("means.value", f"not one of the allowed values of the dimension {named}")


def _example_errors(
    doc: Document,
    example: WorkedExample,
    only: PinnedDefinitions,
    limits: LimitsSettings,
    today: datetime.date,
) -> Iterator[CatalogError]:
    resolved = resolve_question(example.question, only, limits, today)
    if is_successful(resolved):
        return
    problem = resolved.failure()
    match problem:
        case Refusal():
            refused = f"ask_metric would refuse this question ({problem.code.value}): "
            yield doc.error("question", refused + problem.detail)
        case QuestionError():
            yield doc.error("question" + problem.field.removeprefix("$"), problem.problem)
        case _:
            assert_never(problem)


def _metrics_only(metrics: Metrics, derived: DerivedMetrics) -> PinnedDefinitions:
    """The catalog's metrics as resolution reads them, before anything is pinned (resolution
    reads the metrics alone; the digests are computed once the whole catalog is checked)."""
    catalog = Catalog(
        models=(),
        relationships=(),
        metrics=tuple(m for _, m in metrics.values()),
        derived=tuple(d for _, d in derived.values()),
    )
    return PinnedDefinitions(
        version="", digest="", time_zone="", metric_digests={}, catalog=catalog
    )
