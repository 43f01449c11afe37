r"""The catalog's knowledge as an agent sees it: structured parts, and their text lines.

Terms, phrases, synonyms, names, phrasings and example questions are always shown (escaped);
every body is prose, carried or omitted by the operator's setting like every description.
The text lines of each part::

    not defined: churn
    synonyms:	attrition
    > Nothing certified counts customers who stopped buying; ask for active_customers.
    term: sales
    synonyms:	turnover
    means: revenue
    > What the shop charged.
    term: web sales
    means: revenue where channel = web
    caveat: returns_lag
    > Returns are booked up to 30 days late.
    example: revenue_by_quarter
    asked:	How much did we sell each quarter of 2024?
    question: {"metrics":["revenue"],"grain":"quarter","range":{"start":"2024-01-01",...}}

A list is tab-separated escaped cells, like a dimension's values; the question is the compact
JSON an ``ask_metric`` call takes, escaped as text (so ``\\`` stands for one backslash).
"""

from collections.abc import Iterator
from typing import Any, assert_never

import msgspec

from sutura.core.catalog.view.wire import (
    CatalogWire,
    Description,
    absent_unless_carried,
    prose_of,
    quoted_lines,
)
from sutura.core.definitions.knowledge import (
    Caveat,
    GlossaryTerm,
    Means,
    MeansMetric,
    MeansValue,
    NotDefined,
    WorkedExample,
    compact_question,
)
from sutura.core.nouns.prose import Carried, CatalogProse
from sutura.core.text.escape import escape_cell, escape_text


class CatalogMeans(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """What a glossary term means: a metric, or a metric for one value of one dimension."""

    metric: str
    dimension: str | msgspec.UnsetType = msgspec.UNSET
    value: str | msgspec.UnsetType = msgspec.UNSET


class CatalogTerm(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A glossary term: a user's word, its synonyms, and the certified thing it means."""

    term: str
    synonyms: list[str]
    means: CatalogMeans
    description: Description = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


class CatalogNotDefined(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A phrase no certified metric answers: refuse it rather than improvise it."""

    phrase: str
    synonyms: list[str]
    description: Description = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


class CatalogCaveat(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """Something to know about a metric, listed under each metric it is about."""

    name: str
    description: Description = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


class CatalogExample(CatalogWire, frozen=True, kw_only=True, omit_defaults=True):
    """A worked question: how a user might ask, and the ``ask_metric`` input that answers it."""

    name: str
    asked: list[str]
    question: dict[str, Any]
    description: Description = msgspec.UNSET

    def __post_init__(self) -> None:
        """Drop a description the setting did not carry."""
        absent_unless_carried(self)


def term_part(term: GlossaryTerm, prose: CatalogProse) -> CatalogTerm:
    """A glossary term under the operator's prose setting."""
    return CatalogTerm(
        term=term.term,
        synonyms=list(term.synonyms),
        means=_means(term.means),
        description=Carried.under(prose, term.description),
    )


def not_defined_part(phrase: NotDefined, prose: CatalogProse) -> CatalogNotDefined:
    """A phrase not defined under the operator's prose setting."""
    return CatalogNotDefined(
        phrase=phrase.phrase,
        synonyms=list(phrase.synonyms),
        description=Carried.under(prose, phrase.description),
    )


def caveat_part(caveat: Caveat, prose: CatalogProse) -> CatalogCaveat:
    """A caveat under the operator's prose setting."""
    return CatalogCaveat(name=caveat.name, description=Carried.under(prose, caveat.description))


def example_part(example: WorkedExample, prose: CatalogProse) -> CatalogExample:
    """A worked example under the operator's prose setting."""
    return CatalogExample(
        name=example.name,
        asked=list(example.asked),
        question=compact_question(example.question),
        description=Carried.under(prose, example.description),
    )


def _means(means: Means) -> CatalogMeans:
    match means:
        case MeansMetric():
            return CatalogMeans(metric=means.metric)
        case MeansValue():
            return CatalogMeans(metric=means.metric, dimension=means.dimension, value=means.value)
        case _:
            assert_never(means)


def _listed(label: str, items: list[str]) -> list[str]:
    return ["\t".join([f"{label}:", *map(escape_cell, items)])] if items else []


def not_defined_lines(part: CatalogNotDefined) -> list[str]:
    """``not defined: <phrase>``, its synonyms, its quoted prose."""
    head = [f"not defined: {escape_cell(part.phrase)}", *_listed("synonyms", part.synonyms)]
    return head + quoted_lines(part.description)


def term_lines(part: CatalogTerm) -> list[str]:
    """``term: <term>``, its synonyms, what it means, its quoted prose."""
    means = part.means
    meant = escape_cell(means.metric)
    if isinstance(means.dimension, str) and isinstance(means.value, str):
        meant += f" where {escape_cell(means.dimension)} = {escape_cell(means.value)}"
    head = [f"term: {escape_cell(part.term)}", *_listed("synonyms", part.synonyms)]
    return [*head, f"means: {meant}", *quoted_lines(part.description)]


def caveat_lines(part: CatalogCaveat) -> list[str]:
    """``caveat: <name>`` and its quoted prose."""
    return [f"caveat: {escape_cell(part.name)}", *quoted_lines(part.description)]


def example_lines(part: CatalogExample) -> list[str]:
    """``example: <name>``, the phrasings, the question as ``ask_metric`` JSON, quoted prose."""
    question = escape_text(msgspec.json.encode(part.question).decode())
    head = [f"example: {escape_cell(part.name)}", *_listed("asked", part.asked)]
    return [*head, f"question: {question}", *quoted_lines(part.description)]


def knowledge_texts(
    glossary: list[CatalogTerm],
    not_defined: list[CatalogNotDefined],
    examples: list[CatalogExample],
) -> Iterator[str]:
    """Every string of the knowledge parts an author chose (for the lone-surrogate check)."""
    for term in glossary:
        yield from (term.term, *term.synonyms, prose_of(term.description) or "")
        yield from (term.means.metric, *_set(term.means.dimension), *_set(term.means.value))
    for phrase in not_defined:
        yield from (phrase.phrase, *phrase.synonyms, prose_of(phrase.description) or "")
    for example in examples:
        yield from (example.name, *example.asked, prose_of(example.description) or "")
        yield from _strings(example.question)


def _set(value: str | msgspec.UnsetType) -> tuple[str, ...]:
    return () if isinstance(value, msgspec.UnsetType) else (value,)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
