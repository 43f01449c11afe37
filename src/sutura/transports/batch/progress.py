"""The progress bar of ``sutura render``: drawn on a terminal, absent everywhere else.

The bar library is imported only when a bar is drawn, so a script or a pipe never pays for it.
"""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

ProgressHook = Callable[[int, int], None]
"""``hook(bytes_read, records)``."""


def _silent(consumed: int, records: int) -> None:
    """No bar."""


def _columns() -> tuple["ProgressColumn", ...]:
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    return (
        TextColumn("rendering"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[records]} records"),
    )


@contextmanager
def progress_bar(
    terminal: TextIO, total_bytes: int | None, *, show: bool
) -> Iterator[ProgressHook]:
    """A hook that advances a bar on ``terminal`` while the block runs; silent unless ``show``.

    The bar is transient: it is erased when the block ends, so the summary line that follows
    is the last thing on the terminal.
    """
    if not show:
        yield _silent
        return
    from rich.console import Console
    from rich.progress import Progress

    console = Console(file=terminal)
    with Progress(*_columns(), console=console, transient=True, redirect_stdout=False) as bar:
        task = bar.add_task("rendering", total=total_bytes, records=0)

        def advance(consumed: int, records: int) -> None:
            bar.update(task, completed=consumed, records=records)

        yield advance
