"""What every data source offers the answering service.

A source runs one compiled statement under a deadline and a row cap and returns its rows as
canonical text, or a refusal. It never raises into the caller for anything the data system
does; a driver's own message goes to the ``sutura.source`` log, never into a refusal.
"""

from typing import Protocol

from returns.result import Result

from sutura.core.outcome.refusal import Refusal
from sutura.core.sql.compile import CompiledQuery, Dialect

TextRows = list[list[str | None]]
"""Rows of canonical text cells; ``None`` is SQL NULL."""


class Source(Protocol):
    """A data system under an alias, read with one posture, speaking one dialect."""

    @property
    def alias(self) -> str:
        """The name the settings and the catalog's models use for this source."""
        ...

    @property
    def posture(self) -> str:
        """Whose identity reads the data (``shared-service-user``)."""
        ...

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect statements for this source are compiled to."""
        ...

    async def run(
        self, compiled: CompiledQuery, *, deadline_seconds: float, max_rows: int
    ) -> Result[TextRows, Refusal]:
        """Run ``compiled`` and return its raw rows as text.

        Fetches at most ``max_rows + 1`` rows and refuses with ``result_too_large`` when there
        are more than ``max_rows``: an answer is never truncated. Past ``deadline_seconds`` the
        query is cancelled and refused with ``deadline_exceeded``.
        """
        ...

    async def close(self) -> None:
        """Release the connection; later runs refuse with ``source_unavailable``."""
        ...
