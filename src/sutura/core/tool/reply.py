"""What one capability call comes to: the closed union every transport maps to its envelope.

- :class:`Answered`: the value and both its halves (an answer, the catalog, raw rows, a
  compiled statement).
- :class:`Declined`: a refusal, which is an answer too, with both its halves and its status.
- :class:`Malformed`: the arguments are not the capability's input: the field and the problem,
  never the value sent.
- :class:`NotPermitted`: the caller lacks the capability's scope (named).
- :class:`NotOffered`: this deployment does not offer the capability (``run_sql`` off).
- :class:`Failed`: something broke; a fixed sentence, the cause in the operator's log.

Transports ``match`` a reply exhaustively: a new kind of reply is a type error in each of them.

>>> from sutura.core.tool.capability import Capability
>>> Malformed(capability=Capability.ASK_METRIC, field="$.grain", problem="invalid value").sentence()
'malformed question: $.grain: invalid value'
>>> outcome_code(NotOffered(capability=Capability.RUN_SQL))
'not_offered'
"""

from typing import Final, assert_never

from sutura.core.catalog.view.catalog import CatalogBody
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.nouns.values import Values
from sutura.core.raw.outcome import RawRefusal, RawRefusalCode, RawRows, raw_status
from sutura.core.sql.shown import ShownStatement
from sutura.core.tool.capability import Capability, Scope, scope_of
from sutura.core.tool.codec import Halves

FAILURE_SENTENCE: Final = (
    "sutura failed: something broke while answering, and nothing was answered. The operator's "
    "log has the cause; the same question may work later."
)


class Answered(Frozen, frozen=True):
    """The capability's value, and its two halves built from it."""

    capability: Capability
    halves: Halves
    value: Answer | CatalogBody | RawRows | ShownStatement | Values


class Declined(Frozen, frozen=True):
    """A typed refusal (certified or raw), with its two halves."""

    capability: Capability
    halves: Halves
    value: Refused | RawRefusal

    @property
    def code(self) -> str:
        """The refusal's code."""
        match self.value:
            case Refused():
                return self.value.reason.code.value
            case RawRefusal():
                return self.value.code.value
            case _:
                assert_never(self.value)

    @property
    def status(self) -> int:
        """The HTTP status the refusal is sent with."""
        match self.value:
            case Refused():
                return self.value.reason.status
            case RawRefusal():
                return raw_status(self.value.code)
            case _:
                assert_never(self.value)

    @property
    def retryable(self) -> bool:
        """Whether asking again later may succeed (the data system could not be reached)."""
        match self.value:
            case Refused():
                return self.value.reason.code is RefusalCode.SOURCE_UNAVAILABLE
            case RawRefusal():
                return self.value.code is RawRefusalCode.SOURCE_UNAVAILABLE
            case _:
                assert_never(self.value)


class Malformed(Frozen, frozen=True):
    """Arguments that are not the capability's input: where, and what is wrong (no value)."""

    capability: Capability
    field: str
    problem: str

    def sentence(self) -> str:
        """One line naming the field and the problem, never the value."""
        return f"{_malformed_what(self.capability)}: {self.field}: {self.problem}"


def _malformed_what(capability: Capability) -> str:
    match capability:
        case Capability.DESCRIBE_CATALOG | Capability.LIST_VALUES:
            return "malformed arguments"
        case Capability.ASK_METRIC | Capability.COMPILE_QUESTION:
            return "malformed question"
        case Capability.RUN_SQL:
            return "malformed statement"
        case _:
            assert_never(capability)


class NotPermitted(Frozen, frozen=True):
    """The caller does not hold the scope the capability needs."""

    capability: Capability

    @property
    def scope(self) -> Scope:
        """The missing scope."""
        return scope_of(self.capability)

    def sentence(self) -> str:
        """One line naming the scope (never anything the caller sent)."""
        return (
            f"insufficient scope: {self.capability.value} needs the scope {self.scope.value}, "
            "which this caller was not granted."
        )


class NotOffered(Frozen, frozen=True):
    """The deployment does not offer the capability (the operator turned it off)."""

    capability: Capability

    def sentence(self) -> str:
        """One line naming the capability (and the setting that turns it on, if one does)."""
        how = _how_to_offer(self.capability)
        return f"{self.capability.value} is not offered by this deployment{how}"


def _how_to_offer(capability: Capability) -> str:
    match capability:
        case (
            Capability.DESCRIBE_CATALOG
            | Capability.ASK_METRIC
            | Capability.COMPILE_QUESTION
            | Capability.LIST_VALUES
        ):
            return "."
        case Capability.RUN_SQL:
            return " (the operator has not set tools.run_sql.enabled)."
        case _:
            assert_never(capability)


class Failed(Frozen, frozen=True):
    """Something broke; only the fixed sentence reaches the caller."""

    capability: Capability

    def sentence(self) -> str:
        """The fixed sentence (the cause is in the operator's log)."""
        return FAILURE_SENTENCE


Reply = Answered | Declined | Malformed | NotPermitted | NotOffered | Failed
"""Everything one call can come to."""


def outcome_code(reply: Reply) -> str:
    """The reply as the audit record and the metrics name it: ``answer``, a refusal's code,
    ``malformed``, ``not_permitted``, ``not_offered`` or ``failure``."""
    match reply:
        case Answered():
            return "answer"
        case Declined():
            return reply.code
        case Malformed():
            return "malformed"
        case NotPermitted():
            return "not_permitted"
        case NotOffered():
            return "not_offered"
        case Failed():
            return "failure"
        case _:
            assert_never(reply)
