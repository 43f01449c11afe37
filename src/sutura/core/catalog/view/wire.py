r"""What every part of the structured catalog shares: absent fields left out, prose carried.

A description in a structured half is :class:`~sutura.core.nouns.prose.Carried` prose or
absent (``UNSET``); never ``null``, never empty because the operator omitted it. In a text half
every line of it is escaped and prefixed ``> `` (split on ``\n`` only; nothing stripped,
normalised or cut).

>>> from sutura.core.nouns.prose import CatalogProse
>>> quoted_lines(Carried.under(CatalogProse.QUOTED, "Net.\nGross\u202e."))
['> Net.', '> Gross\\u202e.']
>>> quoted_lines(msgspec.UNSET)
[]
"""

import msgspec

from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.prose import NOT_CARRIED, Carried
from sutura.core.text.escape import escape_text


class CatalogWire(Frozen, frozen=True, omit_defaults=True):
    """Base of the structured catalog: absent optional fields are left out, not nulled."""


Description = Carried | msgspec.UnsetType
"""A description as a structured half holds it: carried prose, or absent (``UNSET``)."""


def absent_unless_carried(value: CatalogWire) -> None:
    """Prose the setting did not carry is absent from the JSON, never ``null`` or empty.

    For the ``__post_init__`` of every part with a ``description`` (each declares the field
    where its own field order puts it).
    """
    if getattr(value, "description", msgspec.UNSET) is NOT_CARRIED:
        msgspec.structs.force_setattr(value, "description", msgspec.UNSET)


def prose_of(description: Description) -> str | None:
    """The text a description carries, or ``None`` when absent.

    >>> from sutura.core.nouns.prose import CatalogProse
    >>> prose_of(msgspec.UNSET) is None, prose_of(Carried.under(CatalogProse.QUOTED, "x"))
    (True, 'x')
    """
    return description.text if isinstance(description, Carried) else None


def quoted_lines(description: Description) -> list[str]:
    """Every line of the description, escaped and prefixed ``> ``; none when absent or empty."""
    text = prose_of(description)
    return [f"> {escape_text(line)}" for line in text.split("\n")] if text else []
