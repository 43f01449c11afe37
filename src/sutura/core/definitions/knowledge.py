"""Knowledge: what a catalog tells an agent beside its metrics.

Four document kinds, each a frozen value here:

- :class:`GlossaryTerm`: a user's word (and its synonyms) and the certified thing it means,
  a metric or one allowed value of one of its dimensions;
- :class:`Caveat`: something to know about one or more metrics, shown under each;
- :class:`NotDefined`: a word nothing certified answers, which an agent must refuse;
- :class:`WorkedExample`: phrasings a user might ask, and the real question that answers them.

Every ``description`` is the document's body: catalog prose, untrusted, carried or omitted by
``prompt.catalog_prose`` like every description, and left out of the digest.

:meth:`Knowledge.following` is the rule a per-caller view keeps knowledge by: knowledge follows
the metrics it leads to, so nothing shown names a metric the caller cannot see.
"""

import functools
from typing import assert_never

import msgspec

from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.question import Question


class MeansMetric(Frozen, tag="metric", tag_field="kind", frozen=True):
    """``means: {metric}``: the word is the metric."""

    metric: str


class MeansValue(Frozen, tag="value", tag_field="kind", frozen=True):
    """``means: {metric, dimension, value}``: the word is the metric for one allowed value."""

    metric: str
    dimension: str
    value: str


Means = MeansMetric | MeansValue


class GlossaryTerm(Frozen, frozen=True):
    """``kind: glossary``: a term, its synonyms and what it means."""

    term: str
    synonyms: tuple[str, ...]
    means: Means
    description: str = ""


class Caveat(Frozen, frozen=True):
    """``kind: caveat``: shown under every metric it is ``about``."""

    name: str
    about: tuple[str, ...]
    description: str = ""


class NotDefined(Frozen, frozen=True):
    """``kind: not_defined``: a phrase (and synonyms) that no certified metric answers."""

    phrase: str
    synonyms: tuple[str, ...]
    description: str = ""


class WorkedExample(Frozen, frozen=True):
    """``kind: example``: how a user might ask, and the question that answers it."""

    name: str
    asked: tuple[str, ...]
    question: Question
    description: str = ""


KnowledgeDocument = GlossaryTerm | Caveat | NotDefined | WorkedExample


def means_metric(means: Means) -> str:
    """The metric a glossary term leads to."""
    match means:
        case MeansMetric() | MeansValue():
            return means.metric
        case _:
            assert_never(means)


class Knowledge(Frozen, frozen=True, dict=True):
    """Every knowledge document of a catalog, each kind sorted by its name, term or phrase.

    (``dict=True`` gives room for the caveats' index by metric, built on first use.)
    """

    glossary: tuple[GlossaryTerm, ...] = ()
    caveats: tuple[Caveat, ...] = ()
    not_defined: tuple[NotDefined, ...] = ()
    examples: tuple[WorkedExample, ...] = ()

    def following(self, metrics: frozenset[str]) -> "Knowledge":
        """What may be shown beside the metrics ``metrics``: a caveat only when all its
        metrics are there, a glossary term or an example only when every metric it leads to
        is; a phrase not defined names no metric and always stays.

        >>> term = GlossaryTerm(term="sales", synonyms=(), means=MeansMetric(metric="revenue"))
        >>> Knowledge(glossary=(term,)).following(frozenset()).glossary
        ()
        """
        return Knowledge(
            glossary=tuple(g for g in self.glossary if means_metric(g.means) in metrics),
            caveats=tuple(c for c in self.caveats if metrics.issuperset(c.about)),
            not_defined=self.not_defined,
            examples=tuple(e for e in self.examples if metrics.issuperset(e.question.metrics)),
        )

    def caveats_of(self, metric: str) -> tuple[Caveat, ...]:
        """The caveats about ``metric``, by name."""
        return self._caveats_by_metric.get(metric, ())

    @functools.cached_property
    def _caveats_by_metric(self) -> dict[str, tuple[Caveat, ...]]:
        index: dict[str, list[Caveat]] = {}
        for caveat in self.caveats:
            for metric in dict.fromkeys(caveat.about):
                index.setdefault(metric, []).append(caveat)
        return {metric: tuple(caveats) for metric, caveats in index.items()}

    @property
    def empty(self) -> bool:
        """Whether the catalog declares no knowledge at all."""
        return not (self.glossary or self.caveats or self.not_defined or self.examples)


def compact_question(question: Question) -> dict[str, object]:
    """The question as ``ask_metric`` takes it, without the fields left at their defaults.

    >>> import datetime
    >>> from sutura.core.nouns.question import Range
    >>> compact_question(Question(metrics=["revenue"], grain="year",
    ...     range=Range(start=datetime.date(2024, 1, 1), end=datetime.date(2025, 1, 1))))
    {'metrics': ['revenue'], 'grain': 'year', 'range': {'start': '2024-01-01', 'end': '2025-01-01'}}
    """
    plain = msgspec.to_builtins(question)
    assert isinstance(plain, dict)  # a Struct becomes a dict
    first = {key: plain[key] for key in ("metrics", "grain")}  # as a person writes them
    return _without_defaults({**first, **plain})


def _without_defaults(value: dict[str, object]) -> dict[str, object]:
    kept: dict[str, object] = {}
    for key, item in value.items():
        if item is None or item is False or item == []:
            continue
        kept[key] = _without_defaults(item) if isinstance(item, dict) else item
    return kept
