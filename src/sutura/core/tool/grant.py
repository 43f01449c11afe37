"""What a verified access token grants: its scopes as capabilities, its groups as audiences.

Scope strings outside sutura's fixed literals are ignored (a token carries the scopes of
every resource its client asked for); a token with no sutura scope may do nothing. A group
maps to audience ids through ``security.audience_mapping``; a group the mapping does not name
grants no audience.

>>> granted = grant(
...     subject="agent-7",
...     scopes=["openid", "sutura:metrics.ask", "sutura:everything"],
...     groups=["finance", "staff"],
...     mapping={"finance": ["finance", "board"]},
...     request_id="r1",
... )
>>> sorted(s.value for s in granted.scopes), sorted(granted.audiences)
(['sutura:metrics.ask'], ['board', 'finance'])
"""

from collections.abc import Iterable, Mapping, Sequence

from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Scope

_SCOPES = {scope.value: scope for scope in Scope}


def grant(
    *,
    subject: str,
    scopes: Iterable[str],
    groups: Iterable[str],
    mapping: Mapping[str, Sequence[str]],
    request_id: str,
) -> Caller:
    """The caller a verified token describes."""
    held = frozenset(_SCOPES[s] for s in scopes if s in _SCOPES)
    audiences = frozenset(a for group in groups for a in mapping.get(group, ()))
    return Caller(subject=subject, scopes=held, audiences=audiences, request_id=request_id)
