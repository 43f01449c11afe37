"""The canonical text of one value a data system returned.

Integers and decimals are exact and never pass through a float; a decimal keeps its scale
(``0.10`` stays ``0.10``); a float appears only when the source column itself is floating
point and is written as its shortest round-trip text. A number that is not finite (a float's,
or PostgreSQL ``numeric``'s) is ``NaN``, ``Infinity`` or ``-Infinity`` whatever its type: the
spelling DuckDB, PostgreSQL, Python's ``float`` and ``Decimal`` and JavaScript's ``Number``
all read back as the same value (``nan`` and ``inf`` are not read by the last); ``-0.0`` is the
cell ``0.0``, the value SQL holds it equal to. Dates and
timestamps are ISO 8601. SQL NULL is ``None``, distinct from the empty string. A value of any
other type is refused with :class:`UnsupportedCellError` rather than guessed at.

>>> [cell_text(v) for v in (None, True, 9223372036854775807, decimal.Decimal("0.10"), "")]
[None, 'true', '9223372036854775807', '0.10', '']
>>> cell_text(datetime.datetime(2024, 1, 2, 3, 4, 5))
'2024-01-02T03:04:05'
>>> [cell_text(v) for v in (math.nan, -math.inf, decimal.Decimal("Infinity"), -0.0)]
['NaN', '-Infinity', 'Infinity', '0.0']
"""

import datetime
import decimal
import math
from collections.abc import Callable
from typing import Any, Final


class UnsupportedCellError(TypeError):
    """A value whose type has no canonical text (the type is named, the value never is)."""

    def __init__(self, kind: type) -> None:
        super().__init__(f"no canonical text for a value of type {kind.__qualname__}")
        self.kind = kind


def _text_of_bool(value: bool) -> str:
    return "true" if value else "false"


NAN: Final = "NaN"
INFINITY: Final = "Infinity"
NEGATIVE_INFINITY: Final = "-Infinity"


def _text_of_decimal(value: decimal.Decimal) -> str:
    if not value.is_finite():
        return _non_finite(value.is_nan(), value.is_signed())
    # format 'f' never uses an exponent and keeps the scale (trailing zeros included).
    return format(value, "f")


def _text_of_float(value: float) -> str:
    if not math.isfinite(value):
        return _non_finite(math.isnan(value), value < 0)
    if value == 0:
        # -0.0 is 0.0 to SQL (one group, equal in every filter): one value, one cell, on every
        # engine (Spark gives 0.0 where DuckDB gives whichever of the two its group met first).
        return "0.0"
    return repr(value)


def _non_finite(nan: bool, negative: bool) -> str:
    # A NaN's sign and payload mean nothing to SQL: every NaN is one value.
    if nan:
        return NAN
    return NEGATIVE_INFINITY if negative else INFINITY


def _text_of_date(value: datetime.date) -> str:
    return value.isoformat()


def _text_of_str(value: str) -> str:
    return value


_BY_TYPE: dict[type, Callable[[Any], str]] = {
    str: _text_of_str,
    int: int.__str__,
    bool: _text_of_bool,
    decimal.Decimal: _text_of_decimal,
    float: _text_of_float,
    datetime.date: _text_of_date,
    datetime.datetime: _text_of_date,
}
# Exact types dispatch through the table; subclasses are matched in this order
# (bool before int, datetime.datetime is a datetime.date and writes the same way).
_BY_SUBCLASS: tuple[type, ...] = (str, bool, int, decimal.Decimal, float, datetime.date)


def cell_text(value: object) -> str | None:
    """The canonical text of ``value``, or ``None`` for SQL NULL.

    Args:
        value: One cell as a database driver returned it.

    Returns:
        Its canonical text, or ``None`` when ``value`` is ``None``.

    Raises:
        UnsupportedCellError: ``value`` is of a type without a canonical text (bytes, intervals,
            lists, ...).
    """
    if value is None:
        return None
    convert = _BY_TYPE.get(type(value))
    if convert is not None:
        return convert(value)
    for kind in _BY_SUBCLASS:
        if isinstance(value, kind):
            return _BY_TYPE[kind](value)
    raise UnsupportedCellError(type(value))
