"""Who is calling: the scopes they hold, the audiences they belong to, the request's id.

A caller is a value every call receives. A surface that verifies an identity builds it from a
verified token; a surface without caller identity (stdio MCP, the command line, the Python API)
builds :meth:`Caller.local`, which holds every scope and sees every audience — explicitly,
through that one named constructor, never through a default argument.

>>> local = Caller.local(request_id="r1", surface="cli")
>>> local.permits(Capability.RUN_SQL), local.subject
(True, 'local:cli')
>>> narrow = Caller(subject="agent-7", scopes=frozenset({Scope.CATALOG_READ}),
...     audiences=frozenset(), request_id="r2")
>>> narrow.permits(Capability.ASK_METRIC)
False
"""

from enum import Enum

from sutura.core.nouns.frozen import Frozen
from sutura.core.tool.capability import Capability, Scope, scope_of


class EveryAudience(Enum):
    """The audiences of a caller that sees every metric (a caller without identity)."""

    EVERY = "every"


Audiences = frozenset[str] | EveryAudience
"""The audience ids a caller belongs to, or every audience."""


class Caller(Frozen, frozen=True):
    """One caller of one call.

    Attributes:
        subject: Who it is, as the audit record names it (a token's ``sub``, or
            ``local:<surface>`` for a surface without identity).
        scopes: The scopes granted; a capability outside them is refused at the call.
        audiences: The audience ids whose restricted metrics this caller may see.
        request_id: The id of the request this call serves, in every log line about it.
    """

    subject: str
    scopes: frozenset[Scope]
    audiences: Audiences
    request_id: str

    @classmethod
    def local(cls, *, request_id: str, surface: str) -> "Caller":
        """A caller on a surface with no caller identity: every scope, every audience."""
        return cls(
            subject=f"local:{surface}",
            scopes=frozenset(Scope),
            audiences=EveryAudience.EVERY,
            request_id=request_id,
        )

    def permits(self, capability: Capability) -> bool:
        """Whether this caller holds the scope ``capability`` needs."""
        return scope_of(capability) in self.scopes
