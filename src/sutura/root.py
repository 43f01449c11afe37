"""Composition root: settings → catalog → sources → service → transport.

The only module that knows every room. Transports receive what they need from here and never
read settings files, catalogs or sources on their own.
"""

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Result

from sutura.transports.cli.main import run_cli

if TYPE_CHECKING:  # imported when used: commands that read no catalog (render) start lighter
    from sutura.boundary.loading import Loaded
    from sutura.boundary.settings_files import LoadedSettings


class Wiring:
    """What the transports are handed: the settings and the catalog, read from ``environ``."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def load(self) -> "Result[Loaded, list[str]]":
        """Settings and catalog only (no data touched)."""
        from sutura.boundary.loading import load

        return load(self.environ)

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
