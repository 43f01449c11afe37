"""DuckDB database files opened ahead, in a thread of their own, while a command reads its catalog.

A one-shot command that opens its sources (``sutura catalog``, ``sutura check``, ``sutura
query``) reads and checks its catalog first, in the interpreter, then opens them. Importing
DuckDB and opening a database file (:func:`~sutura.boundary.sources.duckdb_lockdown.opened_ahead`,
which locks it down with the source's very settings) run here beside the reading instead, much
of it outside the interpreter lock; the source's own connection then joins the database already
open. Only a head start: whatever does not open here is left for opening the source to report.
This module imports neither DuckDB nor the lockdown: the thread does.
"""

import logging
import threading
from collections.abc import Mapping
from typing import Any

from sutura.boundary.sources.context import SourceContext
from sutura.core.settings import DuckDBSourceSettings, SourceSettings

log = logging.getLogger("sutura.source")


class OpenedAhead:
    """The DuckDB database files of some sources, opened in a thread started by :meth:`start`
    and held until :meth:`close`."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None
        self._held: list[Any] = []

    def start(self, sources: Mapping[str, SourceSettings], context: SourceContext) -> None:
        """Open the DuckDB files among ``sources`` in a thread of their own (none: no thread)."""
        if self._thread is not None or not any(
            isinstance(settings, DuckDBSourceSettings) for settings in sources.values()
        ):
            return
        self._thread = threading.Thread(
            target=self._open, args=(sources, context), name="sutura-open-ahead", daemon=True
        )
        self._thread.start()

    def _open(self, sources: Mapping[str, SourceSettings], context: SourceContext) -> None:
        try:
            from sutura.boundary.sources.duckdb_lockdown import opened_ahead

            self._held.extend(opened_ahead(sources, context))
        except Exception:  # only a head start
            log.debug("opening ahead failed", exc_info=True)

    def wait(self) -> None:
        """Wait for the thread to finish opening (the sources are opened after it)."""
        if self._thread is not None:
            self._thread.join()

    def close(self) -> None:
        """Close what was opened ahead, once the thread has finished (later calls do nothing):
        the sources' own connections hold the databases by then."""
        self.wait()
        while self._held:
            self._held.pop().close()
