"""The audit record of one capability call: who asked what, what it came to, how long it took.

One record per call, whatever it came to (a call that ends without a reply — the caller went
away — is recorded too, as ``no_outcome``). It names metrics and codes, never a cell, a filter
value or anything else a question carried; the raw SQL tool's statement is recorded as its
SHA-256 only, since its text can hold any value the caller filtered on.

>>> record = AuditRecord(request_id="r1", subject="local:cli", capability="ask_metric",
...     metrics=["revenue"], outcome="answer", duration_ms=12, definition_digest="ab")
>>> record.line()[:61]
'{"request_id":"r1","subject":"local:cli","capability":"ask_me'
"""

import hashlib
from typing import Final

import msgspec

from sutura.core.nouns.frozen import Frozen
from sutura.core.text.escape import escape_text, is_plain


class AuditRecord(Frozen, frozen=True, omit_defaults=True):
    """One call, as the operator's audit log keeps it (``docs/operations.md`` lists the fields).

    ``rows`` is how many rows an answer or a raw result carried; ``metrics`` the names a
    question asked for; ``statement_sha256`` only for ``run_sql``.
    """

    request_id: str
    subject: str
    capability: str
    outcome: str
    duration_ms: int
    definition_digest: str
    metrics: list[str] = msgspec.field(default_factory=list)
    rows: int | None = None
    statement_sha256: str | None = None

    def line(self) -> str:
        r"""The record as one line of JSON; every text in it escaped (no line break can occur).

        Texts a caller chose (metric names, a request id) are escaped as the text surfaces
        escape untrusted content, so the line decodes to exactly what was asked. (Escaping is
        per character, so the texts need none when their concatenation needs none.)

        >>> AuditRecord(request_id="r\n1", subject="s", capability="c", outcome="o",
        ...     duration_ms=1, definition_digest="d", metrics=["m"]).line()[:31]
        '{"request_id":"r\\\\n1","subject"'
        """
        if is_plain("".join([self.request_id, self.subject, *self.metrics])):
            return _ENCODER.encode(self).decode()  # the usual record: nothing to escape
        escaped = msgspec.structs.replace(
            self,
            request_id=escape_text(self.request_id),
            subject=escape_text(self.subject),
            metrics=[escape_text(name) for name in self.metrics],
        )
        return _ENCODER.encode(escaped).decode()


_ENCODER: Final = msgspec.json.Encoder()


def statement_digest(statement: str) -> str:
    """The SHA-256 of a statement's UTF-8 (a lone surrogate passed through)."""
    return hashlib.sha256(statement.encode("utf-8", "surrogatepass")).hexdigest()
