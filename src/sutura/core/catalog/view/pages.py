"""The catalog in pages an agent's context can hold: searched, ranked, and cut between metrics.

A page's text half holds at most :data:`PAGE_BYTES` bytes (UTF-8): the notice, the page line,
the terms not defined, the shared dimensions its metrics use (each once), the page's
metrics with their caveats, the glossary terms that mean
them and the worked questions that ask for them, the definitions and the operator's
instructions. Pages are cut between metrics, never inside one (no metric is shortened): each
page takes the next metrics while they fit, and always at least one, so a single metric larger
than a page (thousands of allowed values) is a page of its own, and so are terms not defined
and operator instructions larger than a page on every page. The page line gives the page, the
count of pages, how many metrics matched of how many, and how to ask for the next page.

Without a search, the pages run through the metrics in the catalog's order; with one, through
the metrics it matched, best first (:mod:`sutura.core.catalog.view.search`).
"""

import functools
from dataclasses import dataclass
from typing import Final

from returns.result import Failure, Result, Success

from sutura.core.catalog.view.catalog import (
    OPERATOR_HEADING,
    CatalogBody,
    CatalogPage,
    CatalogView,
    metric_lines,
    page_lines,
    shared_lines,
)
from sutura.core.catalog.view.knowledge import example_lines, term_lines
from sutura.core.catalog.view.search import SearchIndex, words_of

PAGE_BYTES: Final = 16_384
"""The most bytes (UTF-8) a page's text half holds, but for a metric larger than a page."""

_PAGE_LINE: Final = len(
    page_lines(CatalogPage(page=10**6, pages=10**6, matching=10**6, total=10**6))[0]
)


def _size(lines: list[str]) -> int:
    """The bytes ``lines`` take in a text half, each with its line break."""
    return sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines)


def _costs(body: CatalogBody, sizes: dict[str, int]) -> dict[str, int]:
    """Each metric's bytes on a page: its lines (``sizes``), the shared dimensions it uses
    (with their heading), its glossary terms, and every worked question that asks for it (counted
    under each of its metrics, so a page never underestimates)."""
    costs = dict(sizes)
    # A shared dimension costs its heading and its own lines, under every metric using it.
    shared = {d.name: _size(shared_lines([d])) for d in body.dimensions}
    for metric in body.metrics:
        costs[metric.name] += sum(shared.get(use, 0) for use in metric.shared)
    for term in body.glossary:
        if term.means.metric in costs:
            costs[term.means.metric] += _size(term_lines(term))
    for example in body.examples:
        metrics = example.question.get("metrics")
        size = _size(example_lines(example))
        for name in set(metrics) if isinstance(metrics, list) else ():
            if name in costs:
                costs[name] += size
    return costs


@dataclass(frozen=True, slots=True)
class PageCuts:
    """What each metric costs on a page, the room a page leaves them, and whether the whole
    catalog fits one page: enough to cut pages (each metric's lines rendered once)."""

    costs: dict[str, int]
    room: int
    whole: bool

    @classmethod
    def of(cls, view: CatalogView) -> "PageCuts":
        """The cuts of ``view``'s pages; ``whole`` when the entire catalog fits one page."""
        sizes = {metric.name: _size(metric_lines(metric)) for metric in view.body.metrics}
        fixed = [view.notice, *view.not_defined_lines(), *view.definitions_lines()]
        operator = view.operator_lines()
        fixed += [OPERATOR_HEADING, *operator] if operator else []
        beside = _size(view.lines_beside_metrics()) + _size(view.shared_lines())
        whole = max(0, beside + sum(sizes.values()) - 1)
        return cls(
            costs=_costs(view.body, sizes),
            room=PAGE_BYTES - _size(fixed) - _PAGE_LINE - 1,
            whole=whole <= PAGE_BYTES,
        )

    def cuts(self, names: list[str]) -> list[tuple[int, int]]:
        """Where each page starts and ends in ``names``: one page, empty, when none match."""
        cuts: list[tuple[int, int]] = []
        start, used = 0, 0
        for place, name in enumerate(names):
            cost = self.costs[name]
            if place > start and used + cost > self.room:
                cuts.append((start, place))
                start, used = place, 0
            used += cost
        cuts.append((start, len(names)))
        return cuts


@dataclass(frozen=True)
class CatalogPages:
    """The whole catalog's view, where its pages are cut, and its search index (made by the
    first search: listing the catalog reads none)."""

    view: CatalogView
    cut: PageCuts

    @classmethod
    def of(cls, view: CatalogView) -> "CatalogPages":
        """The pages of ``view``."""
        return cls(view=view, cut=PageCuts.of(view))

    @functools.cached_property
    def index(self) -> SearchIndex:
        """The search index of the whole catalog's view."""
        return SearchIndex.of(self.view.body)

    @property
    def whole(self) -> bool:
        """Whether the entire catalog fits one page."""
        return self.cut.whole

    @staticmethod
    def searched(search: str | None) -> bool:
        """Whether ``search`` searches (blank, or no word at all, lists every metric)."""
        return search is not None and bool(search.strip()) and bool(words_of(search))

    def matching(self, search: str | None) -> list[str]:
        """The metrics a search matches, best first; every metric, in order, without one."""
        if search is None or not self.searched(search):
            return [metric.name for metric in self.view.body.metrics]
        return self.index.rank(search)

    def count(self, search: str | None = None) -> int:
        """How many pages ``search`` (or the whole catalog) takes."""
        return len(self.cut.cuts(self.matching(search)))

    def page(self, search: str | None, number: int) -> Result[CatalogView, str]:
        """Page ``number`` (from 1) of what ``search`` matches, or why there is no such page."""
        names = self.matching(search)
        cuts = self.cut.cuts(names)
        if number > len(cuts):
            last = len(cuts)
            return Failure(f"page {number} is past the last page ({last}); pages start at 1")
        start, end = cuts[number - 1]
        page = CatalogPage(
            page=number,
            pages=len(cuts),
            matching=len(names),
            total=len(self.view.body.metrics),
        )
        return Success(self.view.showing(names[start:end], page))
