"""Composition root of the ``sutura`` console script: the process environment → the command line.

Who opens what, in order:

1. :func:`main` (here) reads the process environment, once, and hands the command line a
   :class:`Wiring` over it; nothing else in the package reads the environment (the Python
   API's :mod:`sutura.api` is the other composition root).
2. The command runs (:mod:`sutura.transports.cli.commands`); when it needs them it calls
   :meth:`Wiring.load`, which reads the settings files and variables and the catalog files
   (:func:`sutura.boundary.loading.load`): the one place they are read.
3. A command that calls opens the service (:func:`sutura.boundary.startup.open_service`), which
   opens the sources and the raw runner, checks the models and reproduces the anchors, and
   closes them all when its block ends; ``sutura serve`` and ``sutura mcp`` do so inside the
   server they start (:mod:`sutura.transports.http.serve`, :mod:`sutura.transports.mcp.starting`),
   and ``sutura serve`` hands the HTTP app the ``/mcp`` endpoint
   (:func:`sutura.transports.cli.cmd_serve.mcp_of`).

No transport opens a settings file, a catalog file or a source on its own.
"""

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Result

from sutura.transports.cli.main import run_cli

if TYPE_CHECKING:  # imported when used: commands that read no catalog (render) start lighter
    from sutura.boundary.loading import Loaded, SettingsRead
    from sutura.boundary.settings_files import LoadedSettings


class Wiring:
    """What the transports are handed: the settings and the catalog, read from ``environ``."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def load(self, settings_read: "SettingsRead | None" = None) -> "Result[Loaded, list[str]]":
        """Settings and catalog only (no data touched); ``settings_read`` is told the settings
        once they are valid, before the catalog is read."""
        from sutura.boundary.loading import load

        return load(self.environ, settings_read)

    def settings(self) -> "Result[LoadedSettings, list[str]]":
        """Settings only (no catalog read, no data touched)."""
        from sutura.boundary.settings_files import load_settings, unset_note

        return load_settings(self.environ).alt(
            lambda errors: [*unset_note(self.environ), *(e.sentence() for e in errors)]
        )


def main(argv: list[str] | None = None) -> int:
    """The ``sutura`` console script: the one place the process environment is read."""
    environ = dict(os.environ)
    return run_cli(sys.argv[1:] if argv is None else argv, Wiring(environ))
