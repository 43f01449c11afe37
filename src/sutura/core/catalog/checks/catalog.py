"""The whole catalog: checks across documents, every problem collected, then one :class:`Catalog`.

Names are unique per kind; a metric's model exists and has every column the metric reads;
every ``via`` chain walks from the metric's model through existing relationships to a model
that has the dimension's column, visiting each model once; relationships join existing models
on existing columns, onto the target model's declared primary key (so a join never repeats a
row), and no relationship joins two sources (``crossing``). Knowledge documents refer to what
exists (:mod:`.knowledge`).
"""

import datetime
import re
from collections.abc import Iterator, Sequence
from typing import assert_never

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.checks.crossing import source_crossings
from sutura.core.catalog.checks.derived import derived_errors, nesting_errors
from sutura.core.catalog.checks.expressions import settle_metric
from sutura.core.catalog.checks.knowledge import collected, knowledge_errors
from sutura.core.catalog.checks.paths import NO_DUPLICATES, step_key, walk
from sutura.core.catalog.checks.semi import semi_additive_errors
from sutura.core.catalog.checks.shared import Reach, resolve_dimensions, settle_models
from sutura.core.catalog.document.front_matter import nearest_line
from sutura.core.catalog.document.parse import Document, DocumentKind
from sutura.core.catalog.error import CatalogError, quoted
from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    KnowledgeDocument,
    NotDefined,
    WorkedExample,
)
from sutura.core.definitions.model import (
    AggregateTerm,
    Catalog,
    CountIfTerm,
    Derived,
    Dimension,
    ExpressionTerm,
    FilterEquals,
    FilterIsNotNull,
    FilterIsTrue,
    FilterNotEquals,
    FilterPredicate,
    Metric,
    Model,
    RatioMeasure,
    Relationship,
    RequiredFilter,
    SimpleMeasure,
    Term,
)
from sutura.core.settings import LimitsSettings

_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_DEFAULT_LIMITS = LimitsSettings()
# The day a worked example's ``range.last`` is counted back from when the caller names none
# (a catalog read outside a deployment); a deployment passes its own day.
REFERENCE_DAY = datetime.date(2000, 1, 1)
_NO_DUPLICATES = NO_DUPLICATES


class _Index:
    """The first document of each name, per kind, in the order given."""

    def __init__(self, documents: Sequence[Document]) -> None:
        self.models: dict[str, tuple[Document, Model]] = {}
        self.relationships: dict[str, tuple[Document, Relationship]] = {}
        self.metrics: dict[str, tuple[Document, Metric]] = {}
        self.derived: dict[str, tuple[Document, Derived]] = {}
        self._metric_names: dict[str, Document] = {}  # metrics and derived metrics share names
        self.knowledge: list[tuple[Document, KnowledgeDocument]] = []
        self.duplicates: list[CatalogError] = []
        for doc in documents:
            self._add(doc)
        # Every dimension's via chain walks these: built once, not once per dimension.
        self.relationship_definitions = {name: rel for name, (_, rel) in self.relationships.items()}

    def _add(self, doc: Document) -> None:
        definition = doc.definition
        match definition:
            case Model():
                first = self.models.setdefault(definition.name, (doc, definition))[0]
                kind = DocumentKind.MODEL
            case Relationship():
                first = self.relationships.setdefault(definition.name, (doc, definition))[0]
                kind = DocumentKind.RELATIONSHIP
            case Metric():
                first = self._metric_names.setdefault(definition.name, doc)
                if first is doc:
                    self.metrics[definition.name] = (doc, definition)
                kind = DocumentKind.METRIC
            case Derived():
                first = self._metric_names.setdefault(definition.name, doc)
                if first is doc:
                    self.derived[definition.name] = (doc, definition)
                kind = DocumentKind.METRIC
            case GlossaryTerm() | Caveat() | NotDefined() | WorkedExample():
                self.knowledge.append((doc, definition))  # names checked with the knowledge
                return
            case _:
                assert_never(definition)
        if first is not doc:
            where = f"{quoted(first.file)} line {nearest_line(first.lines, 'name')}"
            problem = f"another {kind} is already called {quoted(definition.name)}, in {where}"
            self.duplicates.append(doc.error("name", problem))


def check_catalog(
    documents: Sequence[Document],
    *,
    limits: LimitsSettings = _DEFAULT_LIMITS,
    today: datetime.date = REFERENCE_DAY,
) -> Result[Catalog, list[CatalogError]]:
    """Check the parsed documents together and build the catalog.

    Args:
        documents: every document of the catalog, in the walk's (sorted) order.
        limits: the bounds a worked example's question must stay within.
        today: the day a worked example's ``range.last`` counts back from.

    Returns:
        The catalog with each kind sorted by name, or every problem found.
    """
    if not documents:
        return Failure(
            [CatalogError(file=".", line=0, key="", problem="the catalog has no documents")]
        )
    index = _Index(documents)
    errors = list(index.duplicates)
    errors.extend(_shared_dimensions(index))
    for doc, relationship in index.relationships.values():
        errors.extend(_relationship_errors(index, doc, relationship))
    settled: dict[str, Metric] = {}
    models = {name: model for name, (_, model) in index.models.items()}
    relationships = index.relationship_definitions
    for doc, metric in index.metrics.values():
        errors.extend(_metric_errors(index, doc, metric))
        settled[metric.name], problems = settle_metric(models, relationships, doc, metric)
        errors.extend(problems)
    for doc, derived in index.derived.values():
        errors.extend(derived_errors(index.models, index.metrics, index.derived, doc, derived))
    errors.extend(nesting_errors(index.derived))
    errors.extend(source_crossings(index.models, index.relationships, index.metrics))
    errors.extend(knowledge_errors(index.knowledge, index.metrics, limits, today, index.derived))
    if errors:
        return Failure(errors)
    return Success(
        Catalog(
            models=tuple(sorted((m for _, m in index.models.values()), key=lambda m: m.name)),
            relationships=tuple(
                sorted((r for _, r in index.relationships.values()), key=lambda r: r.name)
            ),
            metrics=tuple(sorted(settled.values(), key=lambda m: m.name)),
            knowledge=collected(index.knowledge),
            derived=tuple(sorted((d for _, d in index.derived.values()), key=lambda d: d.name)),
        )
    )


def _shared_dimensions(index: _Index) -> list[CatalogError]:
    """Check each model's shared dimensions, then give each metric those it uses (in place in
    the index, so every later check reads a metric's dimensions whole)."""
    relationships = {name: rel for name, (_, rel) in index.relationships.items()}
    metric_names = frozenset(index.metrics) | frozenset(index.derived)
    index.models, errors = settle_models(index.models, relationships, metric_names)
    reach = Reach(index.models, relationships)
    for name, (doc, metric) in list(index.metrics.items()):
        resolved, problems = resolve_dimensions(reach, doc, metric)
        index.metrics[name] = (doc, resolved)
        errors.extend(problems)
    return errors


def _no_column(model: Model, column: str) -> str:
    return f"the model {quoted(model.name)} has no column {quoted(column)}"


def _relationship_errors(index: _Index, doc: Document, rel: Relationship) -> Iterator[CatalogError]:
    for side, model_name in (("origin", rel.origin_model), ("target", rel.target_model)):
        found = index.models.get(model_name)
        if found is None:
            yield doc.error(f"{side}_model", f"no model is called {quoted(model_name)}")
            continue
        model = found[1]
        columns = [pair.origin if side == "origin" else pair.target for pair in rel.keys]
        missing = [
            doc.error(f"keys[{i}].equal.{side}", _no_column(model, column))
            for i, column in enumerate(columns)
            if not model.has_column(column)
        ]
        yield from missing
        if side == "target" and not missing:  # a missing key column is the problem to fix first
            yield from _primary_key_errors(doc, rel, model)


def _primary_key_errors(doc: Document, rel: Relationship, target: Model) -> Iterator[CatalogError]:
    """A many-to-one join finds at most one target row only through the target's primary key:
    every column of it (a key of several columns is joined on all of them)."""
    key = target.key_columns
    if not key:
        problem = (
            f"the model {quoted(target.name)} declares no primary_key; a many_to_one "
            f"relationship joins onto its target's primary key, {_NO_DUPLICATES}"
        )
        yield doc.error("target_model", problem)
        return
    joined = {pair.target for pair in rel.keys}
    missing = [column for column in key if column not in joined]
    if len(key) == 1 and missing:
        problem = (
            f"no key joins onto the primary key {quoted(key[0])} of the model "
            f"{quoted(target.name)}; a many_to_one relationship joins onto it, {_NO_DUPLICATES}"
        )
        yield doc.error("keys", problem)
    elif missing:
        shown = ", ".join(quoted(column) for column in missing)
        problem = (
            f"no key joins onto {shown} of the primary key of the model "
            f"{quoted(target.name)}; a many_to_one relationship joins onto every column of it, "
            f"{_NO_DUPLICATES}"
        )
        yield doc.error("keys", problem)


def _metric_errors(index: _Index, doc: Document, metric: Metric) -> Iterator[CatalogError]:
    yield from _grain_errors(doc, metric)
    yield from _anchor_errors(doc, metric)
    yield from _dimension_name_errors(index, doc, metric)
    found = index.models.get(metric.model)
    if found is None:
        yield doc.error("model", f"no model is called {quoted(metric.model)}")
        return  # nothing more can be checked against a model that is not there
    for key, column in _columns_read(metric):
        if not found[1].has_column(column):
            yield doc.error(key, _no_column(found[1], column))
    for i, dimension in enumerate(metric.dimensions):
        yield from _dimension_errors(index, doc, metric, f"dimensions[{i}]", dimension)
    yield from semi_additive_errors(found[1], doc, metric)


def _dimension_name_errors(index: _Index, doc: Document, metric: Metric) -> Iterator[CatalogError]:
    names: set[str] = set()
    for i, dimension in enumerate(metric.dimensions):
        if dimension.shared_from is not None:
            continue  # checked on its model, and where the metric lists it (checks/shared.py)
        key = f"dimensions[{i}].name"
        if dimension.name in names:
            yield doc.error(key, f"the dimension {quoted(dimension.name)} is listed twice")
        if dimension.name in index.metrics or dimension.name in index.derived:
            yield doc.error(key, "a dimension may not share its name with a metric")
        names.add(dimension.name)


def _grain_errors(doc: Document, metric: Metric) -> Iterator[CatalogError]:
    if not metric.grains:
        yield doc.error("grains", "list at least one grain")
    for i, grain in enumerate(metric.grains):
        if grain in metric.grains[:i]:
            yield doc.error(f"grains[{i}]", f"the grain {grain.value} is listed twice")


def _anchor_errors(doc: Document, metric: Metric) -> Iterator[CatalogError]:
    anchor = metric.anchor
    if anchor is None:
        return
    if anchor.start >= anchor.end:
        yield doc.error("anchor.range", "the range must start before it ends (end is exclusive)")
    if _DECIMAL.fullmatch(anchor.value) is None:
        yield doc.error("anchor.value", "expected a plain decimal number such as 1234567.89")


def _columns_read(metric: Metric) -> Iterator[tuple[str, str]]:
    """(key path, column) for every column of the metric's own model that its older forms read
    (expressions are checked when they are settled: ``settle_metric`` in
    :mod:`sutura.core.catalog.checks.expressions`)."""
    if not metric.time_via:
        yield "time_column", metric.time_column
    measure = metric.measure
    match measure:
        case SimpleMeasure():
            yield from _term_column("measure.simple", measure.term)
        case RatioMeasure():
            yield from _term_column("measure.ratio.numerator", measure.numerator)
            yield from _term_column("measure.ratio.denominator", measure.denominator)
        case _:
            assert_never(measure)
    for i, rule in enumerate(metric.required_filters):
        yield from _filter_column(f"required_filters[{i}]", rule)


def _filter_column(key: str, rule: RequiredFilter) -> Iterator[tuple[str, str]]:
    match rule:
        case FilterEquals():
            yield f"{key}.equals.column", rule.column
        case FilterNotEquals():
            yield f"{key}.not_equals.column", rule.column
        case FilterIsTrue():
            yield f"{key}.is_true.column", rule.column
        case FilterIsNotNull():
            yield f"{key}.is_not_null.column", rule.column
        case FilterPredicate():
            pass
        case _:
            assert_never(rule)


def _term_column(key: str, term: Term) -> Iterator[tuple[str, str]]:
    match term:
        case AggregateTerm():
            yield f"{key}.column", term.column
        case CountIfTerm():
            yield f"{key}.count_if", term.column
        case ExpressionTerm():
            pass
        case _:
            assert_never(term)


def _dimension_errors(
    index: _Index, doc: Document, metric: Metric, key: str, dimension: Dimension
) -> Iterator[CatalogError]:
    """A column dimension's ``via`` chain walks from the metric's model, visiting each model
    once; the last model has the column (an expression's columns are checked when settled, a
    shared dimension's on its model)."""
    if dimension.column is None or dimension.shared_from is not None:
        return
    walked = walk(index.relationship_definitions, metric.model, dimension.via)
    if not is_successful(walked):
        step, problem = walked.failure()
        yield doc.error(step_key(key, dimension.via, step), problem)
        return
    target = index.models.get(walked.unwrap())
    if target is not None and not target[1].has_column(dimension.column):
        yield doc.error(f"{key}.column", _no_column(target[1], dimension.column))
