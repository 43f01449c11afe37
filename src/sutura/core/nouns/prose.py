"""Catalog prose: the operator's decision whether catalog authors' words reach an agent.

This module holds the only readers of the setting, each an exhaustive ``match`` ending in
``assert_never``, so a new spelling of :class:`CatalogProse` is a type error where prose is
carried (``tests/typing`` proves it). Everything else asks these functions.

>>> Carried.under(CatalogProse.QUOTED, "Net revenue.").text
'Net revenue.'
>>> Carried.under(CatalogProse.OMITTED, "Net revenue.").text is None
True
"""

from enum import StrEnum
from typing import Final, assert_never

from sutura.core.nouns.notices import OMITTED_NOTICE, QUOTED_NOTICE


class CatalogProse(StrEnum):
    """``prompt.catalog_prose``: quote the authors' prose, or omit it everywhere it is carried."""

    QUOTED = "quoted"
    OMITTED = "omitted"


_KEY: Final = object()


class Carried:
    """Catalog prose as a carrier holds it: the text, or nothing when the operator omits prose.

    The text is private and :meth:`under` is the only constructor, so a description cannot be
    filled without consulting the setting. Every omitted value is the one :data:`NOT_CARRIED`,
    which msgspec's ``omit_defaults`` drops from a structured half by identity.
    """

    __slots__ = ("_text",)
    _text: str | None

    def __init__(self, key: object, text: str | None) -> None:
        """Internal; use :meth:`under`."""
        if key is not _KEY:
            raise TypeError("Carried is built only by Carried.under(setting, text)")
        object.__setattr__(self, "_text", text)

    @classmethod
    def under(cls, setting: CatalogProse, text: str) -> "Carried":
        """Carry ``text`` as the operator's setting decides: quoted, or not at all."""
        match setting:
            case CatalogProse.QUOTED:
                return cls(_KEY, text)
            case CatalogProse.OMITTED:
                return NOT_CARRIED
            case _:
                assert_never(setting)

    @property
    def text(self) -> str | None:
        """The carried prose, or ``None`` when the operator omits it."""
        return self._text

    def __setattr__(self, name: str, value: object) -> None:
        """Carried values are immutable."""
        raise AttributeError("Carried is immutable")

    def __eq__(self, other: object) -> bool:
        """Equal when both carry the same text, or both carry none."""
        return isinstance(other, Carried) and other._text == self._text

    def __hash__(self) -> int:
        """Hash of the carried text."""
        return hash(self._text)

    def __repr__(self) -> str:
        """``Carried('text')`` or ``NOT_CARRIED``."""
        return "NOT_CARRIED" if self._text is None else f"Carried({self._text!r})"


NOT_CARRIED: Final = Carried(_KEY, None)


def catalog_notice(setting: CatalogProse) -> str:
    """The one boundary notice a text surface states before catalog content.

    >>> catalog_notice(CatalogProse.OMITTED).startswith("Catalog prose is omitted")
    True
    """
    match setting:
        case CatalogProse.QUOTED:
            return QUOTED_NOTICE
        case CatalogProse.OMITTED:
            return OMITTED_NOTICE
        case _:
            assert_never(setting)
