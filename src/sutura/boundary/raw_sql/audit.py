"""The audit record of every raw SQL call: to the operator's log, never to the caller.

One record per call on the ``sutura.audit`` logger, at INFO: the source, the outcome
(``raw_rows`` with its row count, or the refusal's code), the duration, the statement's
SHA-256 and the statement itself, escaped (so no statement can write a second log line) and
cut visibly past :data:`STATEMENT_SHOWN` characters. A call that ends without an outcome (the
caller went away, or something broke) is recorded too.
"""

import hashlib
import logging
import time
from typing import Final, assert_never

from sutura.boundary.raw_sql.base import RawRunner
from sutura.core.raw.outcome import RawOutcome, RawRefusal, RawRows
from sutura.core.text.escape import escape_text

audit_log = logging.getLogger("sutura.audit")

STATEMENT_SHOWN: Final = 4000
"""Characters of a statement written to the audit record; the rest is counted."""


def outcome_code(outcome: RawOutcome | None) -> str:
    """``raw_rows n=<rows>``, the refusal's code, or ``no_outcome``."""
    match outcome:
        case None:
            return "no_outcome"
        case RawRows():
            return f"raw_rows n={len(outcome.rows)}"
        case RawRefusal():
            return outcome.code.value
        case _:
            assert_never(outcome)


def shown(statement: str) -> str:
    r"""The statement as the audit record shows it: escaped, and cut visibly.

    >>> shown("SELECT 1;\nDROP TABLE t")
    'SELECT 1;\\nDROP TABLE t'
    >>> shown("x" * (STATEMENT_SHOWN + 3)).endswith("x…[+3 chars]")
    True
    """
    cut = len(statement) - STATEMENT_SHOWN
    head = escape_text(statement[:STATEMENT_SHOWN])
    return f"{head}…[+{cut} chars]" if cut > 0 else head


async def run_audited(
    runner: RawRunner, statement: str, *, deadline_seconds: float, max_rows: int
) -> RawOutcome:
    """``runner.run(...)``, with its audit record written however the call ends."""
    started = time.monotonic()
    outcome: RawOutcome | None = None
    try:
        outcome = await runner.run(statement, deadline_seconds=deadline_seconds, max_rows=max_rows)
        return outcome
    finally:
        digest = hashlib.sha256(statement.encode("utf-8", "surrogatepass")).hexdigest()
        audit_log.info(
            "run_sql source=%s outcome=%s duration_ms=%d statement_sha256=%s statement=%s",
            runner.alias,
            outcome_code(outcome),
            round(1000 * (time.monotonic() - started)),
            digest,
            shown(statement),
        )
