"""Searching the catalog as an agent sees it: metrics ranked by how well words match them.

The index is built from the view's structured half
(:class:`~sutura.core.catalog.view.catalog.CatalogBody`),
so a search sees exactly what the catalog shows: the metric's name, the glossary's terms and
synonyms that mean it, and — only when the operator carries prose — its description, its
dimensions' names and descriptions and its caveats. A search is case-insensitive and split into
words (letters, digits, ``_``); a metric matching no word is left out. Ranked, best first:

- the whole search is the metric's name (or its words joined by ``_``), or a glossary term or
  synonym that means it;
- each word that is a word of the name, or begins one, or (three letters or more) appears
  in it;
- each word of a glossary term or synonym that means it;
- each word (or a word's beginning) of its prose and its dimensions.

Ties keep the catalog's order. Nothing here renders: a result is a list of metric names, shown
by the same view (escaped, prose quoted) as the whole catalog.

>>> index = SearchIndex(
...     [Entry.of("revenue", ["sales", "turnover"], "Net of refunds."),
...      Entry.of("order_count", [], "Orders placed, net of cancellations.")])
>>> index.rank("sales"), index.rank("net"), index.rank("order"), index.rank("churn")
(['revenue'], ['revenue', 'order_count'], ['order_count'], [])
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from sutura.core.catalog.view.catalog import CatalogBody, CatalogMetric
from sutura.core.catalog.view.wire import prose_of

_WORD: Final = re.compile(r"\w+")

_WHOLE_NAME: Final = 1000
_WHOLE_TERM: Final = 500
_NAME_WORD: Final = 100
_NAME_PREFIX: Final = 40
_NAME_PART: Final = 20
_PART_LENGTH: Final = 3
"""The shortest word matched anywhere inside a name (shorter ones match too much)."""
_TERM_WORD: Final = 50
_PROSE_WORD: Final = 10
_PROSE_PREFIX: Final = 3


def words_of(text: str) -> list[str]:
    """The case-folded words of ``text``.

    >>> words_of("Net Revenue (EUR) net_sales")
    ['net', 'revenue', 'eur', 'net_sales']
    """
    return _WORD.findall(text.casefold())


def _name_words(name: str) -> frozenset[str]:
    return frozenset(part for word in words_of(name) for part in (word, *word.split("_")) if part)


@dataclass(frozen=True, slots=True)
class Entry:
    """What a search can match for one metric."""

    name: str
    folded: str
    name_words: frozenset[str]
    terms: frozenset[str]
    term_words: frozenset[str]
    prose_words: frozenset[str]

    @classmethod
    def of(cls, name: str, terms: Iterable[str], prose: str) -> "Entry":
        """The entry of metric ``name``, the glossary phrases that mean it, and its prose."""
        phrases = [" ".join(words_of(term)) for term in terms]
        return cls(
            name=name,
            folded=name.casefold(),
            name_words=_name_words(name),
            terms=frozenset(phrases),
            term_words=frozenset(word for phrase in phrases for word in phrase.split()),
            prose_words=_name_words(prose),
        )

    def score(self, whole: str, words: Sequence[str]) -> int:
        """How well the search (its words, and all of them joined) matches this metric."""
        score = _WHOLE_NAME if self.folded in (whole, "_".join(words)) else 0
        score += _WHOLE_TERM if " ".join(words) in self.terms else 0
        for word in words:
            score += self._word_score(word)
        return score

    def _word_score(self, word: str) -> int:
        if word in self.name_words:
            score = _NAME_WORD
        elif any(part.startswith(word) for part in self.name_words):
            score = _NAME_PREFIX
        elif len(word) >= _PART_LENGTH and word in self.folded:
            score = _NAME_PART
        else:
            score = 0
        score += _TERM_WORD if word in self.term_words else 0
        if word in self.prose_words:
            score += _PROSE_WORD
        elif any(part.startswith(word) for part in self.prose_words):
            score += _PROSE_PREFIX
        return score


class SearchIndex:
    """The catalog's metrics, in the catalog's order, ready to be searched."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Sequence[Entry]) -> None:
        """An index of ``entries`` (their order breaks ties)."""
        self._entries = tuple(entries)

    @classmethod
    def of(cls, body: CatalogBody) -> "SearchIndex":
        """The index of what ``body`` shows (prose only where the operator carries it)."""
        terms: dict[str, list[str]] = {}
        for term in body.glossary:
            terms.setdefault(term.means.metric, []).extend([term.term, *term.synonyms])
        shared = {d.name: f"{d.name} {prose_of(d.description) or ''}" for d in body.dimensions}
        return cls(
            [Entry.of(m.name, terms.get(m.name, ()), _prose(m, shared)) for m in body.metrics]
        )

    def rank(self, search: str) -> list[str]:
        """The names of the metrics ``search`` matches, best first."""
        words = words_of(search)
        whole = search.strip().casefold()
        scored = [(entry.score(whole, words), place) for place, entry in enumerate(self._entries)]
        ranked = sorted((-score, place) for score, place in scored if score > 0)
        return [self._entries[place].name for _, place in ranked]


def _prose(metric: CatalogMetric, shared: dict[str, str]) -> str:
    """The words of a metric's prose and dimensions, shared ones too (``shared``: each one's
    name and prose, by name), and its caveats' names and prose."""
    parts = [prose_of(metric.description) or ""]
    parts += [shared.get(use, use) for use in metric.shared]
    for dimension in metric.dimensions:
        parts += [dimension.name, prose_of(dimension.description) or ""]
    for caveat in metric.caveats:
        parts += [caveat.name, prose_of(caveat.description) or ""]
    return " ".join(parts)
