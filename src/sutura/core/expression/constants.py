"""Constants: the text an author wrote, checked for its kind, its type, and the value bound.

A constant never reaches SQL text: the compiler binds :func:`bound_value` as a parameter. Its
canonical text (what the digest reads) is the written text where the spelling is already one
(a number keeps its scale, ``0.050`` is not ``0.05``), else one spelling: a timestamp written
with a space or a ``T`` is the same instant, ``True`` and ``true`` the same truth.

>>> canonical_text(ConstantKind.TIMESTAMP, "2013-01-01 05:00").unwrap()
'2013-01-01T05:00:00'
>>> from sutura.core.expression.types import shown_type
>>> shown_type(constant_type(Constant(kind=ConstantKind.NUMBER, text="-0.050")))
'decimal(4,3)'
>>> canonical_text(ConstantKind.NUMBER, "1e3").failure()
'expected a number written with digits and at most one decimal point, such as 24 or 0.05'
"""

import datetime
import decimal
import re
from typing import Final, assert_never

from returns.result import Failure, Result, Success

from sutura.core.expression.nodes import Constant, ConstantKind
from sutura.core.expression.types import MAX_PRECISION, Family, SqlType

_NUMBER: Final = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?")
_DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_TIMESTAMP: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?"
)
_TRUTHS: Final = {"true": "true", "True": "true", "false": "false", "False": "false"}
_NUMBER_PROBLEM: Final = (
    "expected a number written with digits and at most one decimal point, such as 24 or 0.05"
)
_NUL_PROBLEM: Final = (
    "a text constant may not hold the character NUL (U+0000): PostgreSQL cannot compare with it"
)

BoundValue = decimal.Decimal | int | str | bool | datetime.date
"""What a constant is bound as: numbers exactly, text, truth values, days (a timestamp is
bound as its text and cast by the engine, in the catalog's time zone; compared with an instant,
as the instant it means there: ``core/sql/reads.py``)."""


def canonical_text(kind: ConstantKind, text: str) -> Result[str, str]:
    """The one spelling of ``text`` as a constant of ``kind``, or why it is not one."""
    match kind:
        case ConstantKind.NUMBER:
            return _number_text(text)
        case ConstantKind.TEXT:
            return Failure(_NUL_PROBLEM) if "\x00" in text else Success(text)
        case ConstantKind.DATE:
            return _date_text(text)
        case ConstantKind.TIMESTAMP:
            return _timestamp_text(text)
        case ConstantKind.BOOLEAN:
            truth = _TRUTHS.get(text)
            return Failure("expected true or false") if truth is None else Success(truth)
        case ConstantKind.INFERRED:
            return Success(text)
        case _:
            assert_never(kind)


def _number_text(text: str) -> Result[str, str]:
    if _NUMBER.fullmatch(text) is None:
        return Failure(_NUMBER_PROBLEM)
    digits = len(text.lstrip("-").replace(".", ""))
    if digits > MAX_PRECISION:
        return Failure(f"a number may have at most {MAX_PRECISION} digits")
    return Success(text)


def _date_text(text: str) -> Result[str, str]:
    try:
        if _DATE.fullmatch(text) is not None:
            return Success(datetime.date.fromisoformat(text).isoformat())
    except ValueError:
        pass
    return Failure("expected a date written YYYY-MM-DD")


def _timestamp_text(text: str) -> Result[str, str]:
    try:
        if _TIMESTAMP.fullmatch(text) is not None:
            moment = datetime.datetime.fromisoformat(text.replace(" ", "T"))
            return Success(moment.isoformat())
    except ValueError:
        pass
    return Failure(
        "expected a timestamp written YYYY-MM-DD HH:MM[:SS[.ffffff]], without a time zone "
        "(it is read in the catalog's time zone)"
    )


def constant_type(constant: Constant) -> SqlType:
    """The type of a checked constant (an inferred one is typed before it is asked)."""
    match constant.kind:
        case ConstantKind.NUMBER:
            return _number_type(constant.text)
        case ConstantKind.TEXT | ConstantKind.INFERRED:
            return SqlType(family=Family.TEXT)
        case ConstantKind.DATE:
            return SqlType(family=Family.DATE)
        case ConstantKind.TIMESTAMP:
            return SqlType(family=Family.TIMESTAMP)
        case ConstantKind.BOOLEAN:
            return SqlType(family=Family.BOOLEAN)
        case _:
            assert_never(constant.kind)


def _number_type(text: str) -> SqlType:
    """An integer, or a decimal whose precision counts every written digit."""
    whole, _, fraction = text.lstrip("-").partition(".")
    if not fraction:
        return SqlType(family=Family.INTEGER)
    return SqlType(family=Family.DECIMAL, precision=len(whole) + len(fraction), scale=len(fraction))


def kind_for(family: Family) -> ConstantKind:
    """The kind a bare constant takes beside a value of ``family``."""
    match family:
        case Family.INTEGER | Family.DECIMAL | Family.FLOAT:
            return ConstantKind.NUMBER
        case Family.TEXT:
            return ConstantKind.TEXT
        case Family.DATE:
            return ConstantKind.DATE
        case Family.TIMESTAMP:
            return ConstantKind.TIMESTAMP
        case Family.BOOLEAN:
            return ConstantKind.BOOLEAN
        case _:
            assert_never(family)


def bound_value(constant: Constant) -> BoundValue:
    """The value a checked constant is bound as."""
    match constant.kind:
        case ConstantKind.NUMBER:
            value = decimal.Decimal(constant.text)
            return int(value) if "." not in constant.text else value
        case ConstantKind.TEXT | ConstantKind.INFERRED | ConstantKind.TIMESTAMP:
            return constant.text
        case ConstantKind.DATE:
            return datetime.date.fromisoformat(constant.text)
        case ConstantKind.BOOLEAN:
            return constant.text == "true"
        case _:
            assert_never(constant.kind)


def number_value(constant: Constant) -> decimal.Decimal:
    """A number constant's exact value (buckets' edges are compared with it)."""
    return decimal.Decimal(constant.text)
