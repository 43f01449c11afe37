"""The one base of every frozen value the core defines.

Frozen (hashable, immutable), keyword-only, and closed: decoding refuses a field the value does
not declare. A subclass repeats ``frozen=True`` only because mypy asks every subclass of a
frozen dataclass-like class to say so; msgspec inherits it.

>>> class Point(Frozen, frozen=True):
...     x: int
>>> Point(x=1) == Point(x=1), hash(Point(x=1)) == hash(Point(x=1))
(True, True)
"""

import msgspec


class Frozen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Base of every value: frozen, keyword-only, and closed to unknown fields."""
