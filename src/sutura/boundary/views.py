"""The catalog as each caller sees it: one view per set of audiences, derived once and kept.

A view holds what a caller's audiences admit (:func:`~sutura.core.tool.seen.seen_by`), the key
that keeps its resolutions apart from another view's, and ``describe_catalog``'s reply over it
(the whole catalog, and its pages). Views are bounded: a caller can name any set of groups, so
past :data:`MAX_VIEWS` sets the kept views are dropped and made again on use.
"""

import functools
from collections.abc import Callable
from typing import Final, assert_never

from returns.pipeline import is_successful

from sutura.boundary.resolutions import view_key
from sutura.core.catalog.view.catalog import CatalogView, Extents
from sutura.core.catalog.view.pages import CatalogPages
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.answer import Refused
from sutura.core.settings import Settings
from sutura.core.tool.caller import Audiences, EveryAudience
from sutura.core.tool.capability import Capability, CatalogRequest
from sutura.core.tool.codec import catalog_halves, halves_of
from sutura.core.tool.reply import Answered, Declined, Malformed, Reply
from sutura.core.tool.seen import seen_by

MAX_VIEWS: Final = 256
"""The most sets of audiences whose views are kept at once."""


class View:
    """One view of the catalog: its definitions, its key, its catalog reply and its pages (each
    made by its first reader: a check, a question or an answer reads none of them, and a
    catalog of 2,000 metrics took a fifth of a second to render and page)."""

    def __init__(
        self, pinned: PinnedDefinitions, audiences: Audiences, build: Callable[[], CatalogView]
    ) -> None:
        self.pinned = pinned
        self.key = view_key(audiences)
        self._build = build

    @functools.cached_property
    def _catalog_view(self) -> CatalogView:
        return self._build()

    @functools.cached_property
    def _catalog(self) -> Reply:
        return _catalog_reply(self._catalog_view)

    @functools.cached_property
    def _pages(self) -> CatalogPages:
        return CatalogPages.of(self._catalog_view)

    def page(self, request: CatalogRequest) -> Reply:
        """The whole catalog when it fits one page and no search or later page is asked for;
        else the page asked for, or why there is none."""
        pages = self._pages
        if pages.whole and request.page == 1 and not pages.searched(request.search):
            return self._catalog
        page = pages.page(request.search, request.page)
        if not is_successful(page):
            capability = Capability.DESCRIBE_CATALOG
            return Malformed(capability=capability, field="$.page", problem=page.failure())
        return _catalog_reply(page.unwrap())


class Views:
    """Every caller's view of ``pinned``, under the operator's prose setting and instructions,
    with where each metric's data is as far as ``extents`` know it."""

    def __init__(
        self,
        pinned: PinnedDefinitions,
        settings: Settings,
        instructions: str | None,
        extents: Extents | None = None,
    ) -> None:
        self._pinned = pinned
        self._extents = extents
        self._prose = settings.prompt.catalog_prose
        self._formulas = settings.prompt.formulas
        self._instructions = instructions
        self._whole = self._made(pinned, EveryAudience.EVERY)
        self._kept: dict[frozenset[str], View] = {}

    def of(self, audiences: Audiences) -> View:
        """The view of a caller in ``audiences`` (the whole catalog for every audience)."""
        match audiences:
            case EveryAudience.EVERY:
                return self._whole
            case frozenset():
                view = self._kept.get(audiences)
                if view is None:
                    if len(self._kept) >= MAX_VIEWS:  # bounded: made-up group sets
                        self._kept.clear()
                    view = self._made(seen_by(self._pinned, audiences), audiences)
                    self._kept[audiences] = view
                return view
            case _:
                assert_never(audiences)

    def _made(self, pinned: PinnedDefinitions, audiences: Audiences) -> View:
        build = functools.partial(
            CatalogView.of, pinned, self._prose, self._instructions, self._extents, self._formulas
        )
        return View(pinned, audiences, build)


def _catalog_reply(view: CatalogView) -> Reply:
    """``describe_catalog``'s reply: both halves of ``view`` (the whole catalog, under the
    operator's prose setting, with the operator's instructions last; or a page of it)."""
    halves = catalog_halves(view)
    if is_successful(halves):
        return Answered(
            capability=Capability.DESCRIBE_CATALOG, halves=halves.unwrap(), value=view.body
        )
    refused = Refused(reason=halves.failure())
    return Declined(
        capability=Capability.DESCRIBE_CATALOG, halves=halves_of(refused), value=refused
    )
