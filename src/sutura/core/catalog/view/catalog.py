r"""The catalog as an agent sees it: one value, built once from the setting, rendered twice.

:meth:`CatalogView.of` reads ``prompt.catalog_prose`` once: it carries each description
through :class:`~sutura.core.nouns.prose.Carried` and resolves the boundary notice, so the
text half and the structured half cannot disagree about the operator's decision. The text half
is, in the order of the agent prompt::

    <the boundary notice>
    not defined: churn                      (terms recorded as not defined)
    > Ask for active_customers instead.
    term: sales                             (the glossary)
    means: revenue
    dimensions shared by the metrics below (each names those it may be asked by):
    dimension: channel                      (each shared dimension, once)
    values:	web	store
    metric: revenue
    grains: day, month
    data: from 2023-01-01 to 2025-12-31 (as of 2026-01-05T09:00:00.000Z)
    > Revenue net of refunds.
    shared dimensions:	channel             (those the metric may be asked by)
    dimension: region (text)                (the metric's own)
    values:	EU	US
    > Where the customer is billed.
    caveat: late_returns                    (each caveat under the metrics it is about)
    > Returns are booked late.
    example: revenue_by_region              (worked questions)
    asked:	Sales by region?
    question: {"metrics":["revenue"],...}
    definitions: v7 (digest 3f2a)
    time zone: UTC
    operator instructions (from this deployment's operator, not a catalog author):
    Answer in French.

Names and values are escaped cells (lists are tab-separated), and every line of prose is
escaped and prefixed ``> `` (split on ``\n`` only; nothing stripped, normalised or cut). The
operator's instructions are trusted text: last, after their own heading, never prefixed ``> ``
(so no author line can pass for one), each line escaped all the same.
"""

import functools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.catalog.view.formula import derived_formula, whole_formula
from sutura.core.catalog.view.knowledge import (
    CatalogCaveat,
    CatalogExample,
    CatalogNotDefined,
    CatalogTerm,
    caveat_lines,
    caveat_part,
    example_lines,
    example_part,
    knowledge_texts,
    not_defined_lines,
    not_defined_part,
    term_lines,
    term_part,
)
from sutura.core.catalog.view.wire import (
    CatalogWire,
    Description,
    absent_unless_carried,
    prose_of,
    quoted_lines,
)
from sutura.core.definitions.knowledge import Knowledge
from sutura.core.definitions.model import Catalog, Derived, Dimension, Metric
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.definitions.tree import leaves
from sutura.core.expression.types import Family
from sutura.core.nouns.answer import MetricDigest
from sutura.core.nouns.extent import Extent
from sutura.core.nouns.formulas import Formulas, formulas_shown
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.prose import Carried, CatalogProse, catalog_notice
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.text.escape import escape_cell, escape_text, has_lone_surrogate

Extents = Mapping[str, Extent]
"""Where each metric's data is, by metric name (a metric its source was not asked of: absent)."""

OPERATOR_HEADING = "operator instructions (from this deployment's operator, not a catalog author):"


class CatalogProvenance(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """What the catalog is: the operator's version, the digest of its meaning, per metric."""

    definition_version: str
    definition_digest: str
    metric_digests: list[MetricDigest]
    time_zone: str


class CatalogDimension(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A dimension, grouped by and filtered on; a filter compares only with ``allowed_values``
    when the dimension lists them. ``type`` (absent where its column declares none) says
    which values a filter takes, and whether it may be a range (a number, date or timestamp)."""

    name: str
    description: Description = msgspec.UNSET
    type: Family | msgspec.UnsetType = msgspec.UNSET
    allowed_values: list[str] | msgspec.UnsetType = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


class CatalogData(CatalogWire, frozen=True, kw_only=True):
    """Where a metric's data is: the first and last day of its rows (ISO dates), as its source
    reported them at ``as_of`` (an ISO 8601 instant)."""

    first: str
    last: str
    as_of: str


class CatalogMetric(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A metric as an agent may ask for it; ``data`` is absent until its source was asked."""

    name: str
    description: Description = msgspec.UNSET
    grains: list[Grain]
    data: CatalogData | msgspec.UnsetType = msgspec.UNSET
    dimensions: list[CatalogDimension]
    """The dimensions the metric declares itself, each described here."""
    shared: list[str] = msgspec.field(default_factory=list)
    """The shared dimensions it may also be asked by, by name (each described once, in the
    body's ``dimensions``); absent: none."""
    caveats: list[CatalogCaveat] = msgspec.field(default_factory=list)
    formula: str | msgspec.UnsetType = msgspec.UNSET
    """The definition as a formula (measure, filters, time column, what each dimension reads),
    when the operator shows formulas (``prompt.formulas``)."""

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


class CatalogPage(CatalogWire, frozen=True, kw_only=True):
    """Which page of a searched or paged catalog this is: page ``page`` of ``pages``, holding
    some of the ``matching`` metrics (those the search found, or all), of ``total`` in all."""

    page: int
    pages: int
    matching: int
    total: int


class CatalogBody(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """The structured half; ``catalog_prose`` is the operator's own spelling of the setting.

    Knowledge lists are absent when the catalog declares none, ``dimensions`` when no metric
    shown uses a shared dimension; ``operator_instructions`` is
    absent when the operator wrote none; ``page`` is absent when the body is the whole catalog.
    """

    provenance: CatalogProvenance
    catalog_prose: CatalogProse
    page: CatalogPage | msgspec.UnsetType = msgspec.UNSET
    not_defined: list[CatalogNotDefined] = msgspec.field(default_factory=list)
    glossary: list[CatalogTerm] = msgspec.field(default_factory=list)
    dimensions: list[CatalogDimension] = msgspec.field(default_factory=list)
    """The shared dimensions the metrics shown use, each once (absent: none)."""
    metrics: list[CatalogMetric]
    examples: list[CatalogExample] = msgspec.field(default_factory=list)
    operator_instructions: str | msgspec.UnsetType = msgspec.UNSET


def _shown(show: bool, formula: Callable[[], str]) -> str | msgspec.UnsetType:
    """The formula when shown; else absent, and never written (writing 2,000 hidden formulas
    took more than half the time of building the catalog's view)."""
    return formula() if show else msgspec.UNSET


def _dimension(dimension: Dimension, prose: CatalogProse) -> CatalogDimension:
    values = dimension.values
    return CatalogDimension(
        name=dimension.name,
        description=Carried.under(prose, dimension.description),
        type=msgspec.UNSET if dimension.type is None else dimension.type,
        allowed_values=msgspec.UNSET if values is None else list(values),
    )


Listed = frozenset[tuple[str, str]]
"""The shared dimensions described once, as (model, name): those the metrics shown use whose
name no other shared dimension they use takes (models are never named to agents, so two
dimensions of one name on two models are each described under the metrics using them)."""


def _listed(catalog: Catalog) -> Listed:
    used = {(d.shared_from, d.name) for m in catalog.metrics for d in m.dimensions}
    names = Counter(name for model, name in used if model is not None)
    return frozenset((m, n) for m, n in used if m is not None and names[n] == 1)


def _shared(catalog: Catalog, listed: Listed, prose: CatalogProse) -> list[CatalogDimension]:
    """Each shared dimension described once, in the models' order and each model's."""
    return [
        _dimension(d, prose)
        for model in catalog.models
        for d in model.dimensions
        if (model.name, d.name) in listed
    ]


def _data(extent: Extent | None) -> CatalogData | msgspec.UnsetType:
    if extent is None:
        return msgspec.UNSET
    first, last = extent.first.isoformat(), extent.last.isoformat()
    return CatalogData(first=first, last=last, as_of=extent.as_of)


def _metric(
    metric: Metric,
    prose: CatalogProse,
    knowledge: Knowledge,
    extents: Extents,
    show: bool,
    listed: Listed = frozenset(),
) -> CatalogMetric:
    return CatalogMetric(
        name=metric.name,
        description=Carried.under(prose, metric.description),
        grains=list(metric.grains),
        data=_data(extents.get(metric.name)),
        dimensions=[
            _dimension(d, prose) for d in metric.dimensions if (d.shared_from, d.name) not in listed
        ],
        shared=[d.name for d in metric.dimensions if (d.shared_from, d.name) in listed],
        caveats=[caveat_part(c, prose) for c in knowledge.caveats_of(metric.name)],
        formula=_shown(show, functools.partial(whole_formula, metric)),
    )


def _derived(
    derived: Derived,
    catalog: Catalog,
    prose: CatalogProse,
    knowledge: Knowledge,
    extents: Extents,
    show: bool,
) -> CatalogMetric:
    """A derived metric, listed like any metric (the tool list's size budget leaves no room for
    its ``op`` and referents; ``sutura describe`` shows them): its dimensions as both referents
    define them, filtered on the values both allow when either lists them. A derived metric
    over derived metrics: as the metrics with a measure of its tree define them."""
    referents = leaves(catalog.metric, catalog.derived_metric, [derived.name])
    dimensions = []
    for name in derived.dimensions:
        found = [d for d in (m.dimension(name) for m in referents) if d is not None]
        listed = [d.values for d in found if d.values is not None]
        allowed = None
        if listed:
            allowed = [v for v in listed[0] if all(v in values for values in listed)]
        dimensions.append(
            CatalogDimension(
                name=name,
                description=Carried.under(prose, found[0].description),
                type=msgspec.UNSET if found[0].type is None else found[0].type,
                allowed_values=msgspec.UNSET if allowed is None else allowed,
            )
        )
    known = [e for e in (extents.get(m.name) for m in referents) if e is not None]
    extent = (
        functools.reduce(Extent.joined, known) if known and len(known) == len(referents) else None
    )
    return CatalogMetric(
        name=derived.name,
        description=Carried.under(prose, derived.description),
        grains=list(derived.grains),
        data=_data(extent),
        dimensions=dimensions,
        caveats=[caveat_part(c, prose) for c in knowledge.caveats_of(derived.name)],
        formula=_shown(show, functools.partial(derived_formula, derived)),
    )


def _dimension_lines(dimension: CatalogDimension) -> list[str]:
    kind = "" if isinstance(dimension.type, msgspec.UnsetType) else f" ({dimension.type.value})"
    lines = [f"dimension: {escape_cell(dimension.name)}{kind}"]
    if not isinstance(dimension.allowed_values, msgspec.UnsetType):
        lines.append("\t".join(["values:", *map(escape_cell, dimension.allowed_values)]))
    return lines + quoted_lines(dimension.description)


SHARED_HEADING = "dimensions shared by the metrics below (each names those it may be asked by):"


def shared_lines(dimensions: list[CatalogDimension]) -> list[str]:
    """The shared dimensions, each described once under their heading (none: no lines)."""
    if not dimensions:
        return []
    return [SHARED_HEADING, *(line for d in dimensions for line in _dimension_lines(d))]


def _formula_lines(label: str, formula: str | msgspec.UnsetType) -> list[str]:
    """``label: <formula>``: author text, escaped like every name (one line, whatever it
    holds), or nothing when formulas are hidden."""
    return [] if isinstance(formula, msgspec.UnsetType) else [f"{label}: {escape_text(formula)}"]


def metric_lines(metric: CatalogMetric) -> list[str]:
    """A metric's lines: name, grains, prose, the shared dimensions it uses (by name), its own
    dimensions and values, then its caveats."""
    lines = [f"metric: {escape_cell(metric.name)}", f"grains: {', '.join(metric.grains)}"]
    if not isinstance(metric.data, msgspec.UnsetType):
        data = metric.data
        first, last, as_of = (escape_cell(t) for t in (data.first, data.last, data.as_of))
        lines.append(f"data: from {first} to {last} (as of {as_of})")
    lines += _formula_lines("formula", metric.formula)
    lines += quoted_lines(metric.description)
    if metric.shared:
        lines.append("\t".join(["shared dimensions:", *map(escape_cell, metric.shared)]))
    for dimension in metric.dimensions:
        lines += _dimension_lines(dimension)
    for caveat in metric.caveats:
        lines += caveat_lines(caveat)
    return lines


def page_lines(page: CatalogPage) -> list[str]:
    """Where the page stands, and how to read the next one (numbers only: nothing an author or
    a caller wrote)."""
    then = (
        f"; next: describe_catalog with page {page.page + 1} and the same search"
        if page.page < page.pages
        else "; this is the last page"
    )
    matching = f"{page.matching} of {page.total} metrics match"
    return [f"page: {page.page} of {page.pages} ({matching}{then})"]


def _shows(example: CatalogExample, shown: frozenset[str]) -> bool:
    metrics = example.question.get("metrics")
    return isinstance(metrics, list) and not shown.isdisjoint(metrics)


def _texts(body: CatalogBody) -> Iterator[str]:
    """Every string of the body an author or operator chose."""
    provenance = body.provenance
    yield provenance.definition_version
    yield provenance.definition_digest
    yield provenance.time_zone
    for digest in provenance.metric_digests:
        yield from (digest.metric, digest.digest)
    yield from _dimension_texts(body.dimensions)
    for metric in body.metrics:
        yield from (metric.name, prose_of(metric.description) or "")
        if isinstance(metric.formula, str):
            yield metric.formula
        yield from _dimension_texts(metric.dimensions)
        yield from metric.shared
        for caveat in metric.caveats:
            yield from (caveat.name, prose_of(caveat.description) or "")
    yield from knowledge_texts(body.glossary, body.not_defined, body.examples)
    if isinstance(body.operator_instructions, str):
        yield body.operator_instructions


def _dimension_texts(dimensions: list[CatalogDimension]) -> Iterator[str]:
    for dimension in dimensions:
        yield from (dimension.name, prose_of(dimension.description) or "")
        if not isinstance(dimension.allowed_values, msgspec.UnsetType):
            yield from dimension.allowed_values


def shared_used(
    dimensions: list[CatalogDimension], metrics: list[CatalogMetric]
) -> list[CatalogDimension]:
    """``dimensions`` narrowed to the shared ones ``metrics`` use (for a page of them)."""
    used = {use for metric in metrics for use in metric.shared}
    return [d for d in dimensions if d.name in used]


@dataclass(frozen=True, slots=True)
class CatalogView:
    """The catalog under one setting: its boundary notice and its structured body."""

    notice: str
    body: CatalogBody

    @classmethod
    def of(
        cls,
        pinned: PinnedDefinitions,
        prose: CatalogProse,
        instructions: str | None = None,
        extents: Extents | None = None,
        formulas: Formulas = Formulas.HIDDEN,
    ) -> "CatalogView":
        """Build the view; the only place the catalog meets the prose setting.

        ``instructions`` are the operator's (``prompt.instructions_file``), carried last;
        ``extents``, where each metric's data is, by metric name, as far as it is known;
        ``formulas`` says whether each metric and dimension shows its definition.

        >>> from sutura.core.definitions.model import Catalog
        >>> pinned = PinnedDefinitions(time_zone="UTC", version="v1", digest="ab",
        ...     metric_digests={},
        ...     catalog=Catalog(models=(), relationships=(), metrics=()))
        >>> view = CatalogView.of(pinned, CatalogProse.OMITTED)
        >>> view.body.catalog_prose, view.notice == catalog_notice(CatalogProse.OMITTED)
        (<CatalogProse.OMITTED: 'omitted'>, True)
        """
        provenance = CatalogProvenance(
            definition_version=pinned.version,
            definition_digest=pinned.digest,
            metric_digests=[
                MetricDigest(metric=name, digest=digest)
                for name, digest in pinned.metric_digests.items()
            ],
            time_zone=pinned.time_zone,
        )
        catalog = pinned.catalog
        show = formulas_shown(formulas)
        # Knowledge follows the metrics shown (a per-caller view shows fewer of them).
        shown = frozenset(m.name for m in catalog.metrics) | {d.name for d in catalog.derived}
        knowledge = catalog.knowledge.following(shown)
        listed = _listed(catalog)
        body = CatalogBody(
            provenance=provenance,
            catalog_prose=prose,
            not_defined=[not_defined_part(n, prose) for n in knowledge.not_defined],
            glossary=[term_part(g, prose) for g in knowledge.glossary],
            dimensions=_shared(catalog, listed, prose),
            metrics=sorted(
                [
                    *(
                        _metric(m, prose, knowledge, extents or {}, show, listed)
                        for m in catalog.metrics
                    ),
                    *(
                        _derived(d, catalog, prose, knowledge, extents or {}, show)
                        for d in catalog.derived
                    ),
                ],
                key=lambda metric: metric.name,
            ),
            examples=[example_part(e, prose) for e in knowledge.examples],
            operator_instructions=msgspec.UNSET if instructions is None else instructions,
        )
        return cls(notice=catalog_notice(prose), body=body)

    def showing(self, names: list[str], page: CatalogPage) -> "CatalogView":
        """The same view narrowed to the metrics ``names`` (in that order) as page ``page``:
        their digests, the glossary terms that mean them, the worked questions that ask for
        one of them; terms not defined and the operator's instructions stay whole."""
        body = self.body
        shown = frozenset(names)
        by_name = {metric.name: metric for metric in body.metrics}
        provenance = msgspec.structs.replace(
            body.provenance,
            metric_digests=[d for d in body.provenance.metric_digests if d.metric in shown],
        )
        metrics = [by_name[name] for name in names]
        narrowed = msgspec.structs.replace(
            body,
            provenance=provenance,
            page=page,
            glossary=[term for term in body.glossary if term.means.metric in shown],
            dimensions=shared_used(body.dimensions, metrics),
            metrics=metrics,
            examples=[example for example in body.examples if _shows(example, shown)],
        )
        return CatalogView(notice=self.notice, body=narrowed)

    def page_lines(self) -> list[str]:
        """The page line, when this view is a page of the catalog."""
        page = self.body.page
        return [] if isinstance(page, msgspec.UnsetType) else page_lines(page)

    def not_defined_lines(self) -> list[str]:
        """The terms recorded as not defined, each with its synonyms and quoted prose."""
        return [line for part in self.body.not_defined for line in not_defined_lines(part)]

    def glossary_lines(self) -> list[str]:
        """The glossary: each term, its synonyms, what it means, its quoted prose."""
        return [line for part in self.body.glossary for line in term_lines(part)]

    def shared_lines(self) -> list[str]:
        """The shared dimensions, each once: as a metric's own is shown."""
        return shared_lines(self.body.dimensions)

    def metric_lines(self) -> list[str]:
        """The shared dimensions once per model, then every metric: grains, prose, the shared
        dimensions it uses, its own dimensions and values, then its caveats."""
        metrics = [line for metric in self.body.metrics for line in metric_lines(metric)]
        return [*self.shared_lines(), *metrics]

    def example_lines(self) -> list[str]:
        """The worked questions: phrasings, the question as JSON, quoted prose."""
        return [line for part in self.body.examples for line in example_lines(part)]

    def definitions_lines(self) -> list[str]:
        """The definitions line (version and digest) and the time zone."""
        provenance = self.body.provenance
        version = escape_cell(provenance.definition_version)
        digest = escape_cell(provenance.definition_digest)
        return [
            f"definitions: {version} (digest {digest})",
            f"time zone: {escape_cell(provenance.time_zone)}",
        ]

    def operator_lines(self) -> list[str]:
        """The operator's instructions, each line escaped (trusted, never ``> ``-quoted)."""
        instructions = self.body.operator_instructions
        if isinstance(instructions, msgspec.UnsetType):
            return []
        return [escape_text(line) for line in instructions.split("\n")]

    def lines(self) -> list[str]:
        """The text half's lines, total: a lone surrogate shows as its escape (for the prompt)."""
        return [*self._lines_before_metrics(), *self.metric_lines(), *self._lines_after_metrics()]

    def lines_beside_metrics(self) -> list[str]:
        """Every line of :meth:`lines` but the metrics' own and the shared dimensions' (whose
        sizes a page counts apart)."""
        return [*self._lines_before_metrics(), *self._lines_after_metrics()]

    def _lines_before_metrics(self) -> list[str]:
        return [self.notice, *self.page_lines(), *self.not_defined_lines(), *self.glossary_lines()]

    def _lines_after_metrics(self) -> list[str]:
        operator = self.operator_lines()
        lines = [*self.example_lines(), *self.definitions_lines()]
        return lines + ([OPERATOR_HEADING, *operator] if operator else [])

    def text(self) -> Result[str, Refusal]:
        """The text half: notice, knowledge and metrics, definitions, the operator's section;
        refused on a lone surrogate.

        The structured half (``body``) is refused by the codec for the same value, so a reply
        carries both halves or neither.
        """
        if any(map(has_lone_surrogate, _texts(self.body))):
            return Failure(refusal(RefusalCode.VALUE_NOT_REPRESENTABLE))
        return Success("\n".join(self.lines()))
