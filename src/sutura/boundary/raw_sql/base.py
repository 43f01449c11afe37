"""What every raw SQL runner offers, and the one way its rows become an outcome.

A runner reads one caller-written statement under a deadline and a row cap. It never raises
for anything the statement or the data system does: every end is a :data:`RawOutcome`, rows or
a typed refusal. The database's own words about a failed statement travel in the refusal as
untrusted content (``raw_failure``); a driver's complaint about anything else is logged to
``sutura.source`` and never returned.
"""

import logging
from collections.abc import Sequence
from typing import Final, Protocol

from sutura.core.raw.outcome import RawOutcome, RawRefusalCode, RawRows, raw_refusal
from sutura.core.sql.cells import UnsupportedCellError, cell_text

log = logging.getLogger("sutura.source")

INTERRUPT_GRACE_SECONDS: Final = 2.0
"""How long past its deadline a caller may wait for a stopped statement to unwind."""


class RawRunner(Protocol):
    """A data source, read by statements the caller wrote, with nothing but reads allowed."""

    @property
    def alias(self) -> str:
        """The source's alias in the settings (``tools.run_sql.source``)."""
        ...

    async def run(self, statement: str, *, deadline_seconds: float, max_rows: int) -> RawOutcome:
        """Run ``statement`` when it is one read-only query; its rows or a typed refusal.

        Fetches at most ``max_rows + 1`` rows and refuses with ``too_many_rows`` above
        ``max_rows`` (never a cut). Past ``deadline_seconds`` the statement is stopped and
        refused with ``deadline_exceeded``.
        """
        ...

    async def close(self) -> None:
        """Release what the runner holds; later runs refuse with ``source_unavailable``."""
        ...


def rows_outcome(
    columns: Sequence[str], rows: Sequence[Sequence[object]], max_rows: int, alias: str
) -> RawOutcome:
    """The raw rows as canonical text, or the refusal a bound or a value calls for."""
    if len(rows) > max_rows:
        return raw_refusal(RawRefusalCode.TOO_MANY_ROWS)
    try:
        cells = [[cell_text(cell) for cell in row] for row in rows]
    except UnsupportedCellError as err:
        log.info("run_sql on %s: %s", alias, err)
        return raw_refusal(RawRefusalCode.VALUE_NOT_SUPPORTED)
    return RawRows(columns=list(columns), rows=cells)
