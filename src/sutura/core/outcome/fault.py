"""What went wrong in a data system, as one closed vocabulary every source and runner shares.

Each driver classifies its own errors into a :class:`Fault` (its error table); what a fault
means to a caller is decided here, once: a certified refusal code for an answer, a raw refusal
code for the raw SQL tool. Only a ``statement`` fault on the raw tool carries the data system's
own words back, as untrusted content; every other driver message stays in the operator's log.

>>> certified_code(Fault.STATEMENT).value, raw_code(Fault.STATEMENT).value
('source_refused', 'statement_failed')
"""

from enum import StrEnum
from typing import assert_never

from sutura.core.nouns.refusal import RefusalCode
from sutura.core.raw.outcome import RawRefusalCode


class Fault(StrEnum):
    """Why a data system gave no rows."""

    DEADLINE = "deadline"
    """The statement was stopped at its deadline (or the server's own timeout fired)."""
    RESOURCES = "resources"
    """The data system ran out of memory, disk or another resource."""
    UNAVAILABLE = "unavailable"
    """The data system could not be reached, or the connection was lost."""
    STATEMENT = "statement"
    """The data system refused the statement itself."""
    VALUE = "value"
    """The result holds a value of a type with no canonical text."""


def certified_code(fault: Fault) -> RefusalCode:
    """The refusal a certified question gets for ``fault``."""
    match fault:
        case Fault.DEADLINE:
            return RefusalCode.DEADLINE_EXCEEDED
        case Fault.RESOURCES:
            return RefusalCode.RESOURCES_EXHAUSTED
        case Fault.UNAVAILABLE:
            return RefusalCode.SOURCE_UNAVAILABLE
        case Fault.STATEMENT:
            return RefusalCode.SOURCE_REFUSED
        case Fault.VALUE:
            return RefusalCode.VALUE_NOT_REPRESENTABLE
        case _:
            assert_never(fault)


def raw_code(fault: Fault) -> RawRefusalCode:
    """The refusal a raw SQL statement gets for ``fault``."""
    match fault:
        case Fault.DEADLINE:
            return RawRefusalCode.DEADLINE_EXCEEDED
        case Fault.RESOURCES:
            return RawRefusalCode.RESOURCES_EXHAUSTED
        case Fault.UNAVAILABLE:
            return RawRefusalCode.SOURCE_UNAVAILABLE
        case Fault.STATEMENT:
            return RawRefusalCode.STATEMENT_FAILED
        case Fault.VALUE:
            return RawRefusalCode.VALUE_NOT_SUPPORTED
        case _:
            assert_never(fault)
