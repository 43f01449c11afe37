"""Composition root: settings → catalog → sources → service → transport.

The only module that knows every room. Transports receive what they need from here and never
read settings files, catalogs or sources on their own.
"""

import sys
from collections.abc import Mapping

from returns.result import Result

from sutura.boundary.answering import Service
from sutura.boundary.settings_files import process_environment
from sutura.boundary.startup import Loaded, load, start
from sutura.transports.cli.main import run_cli


class Wiring:
    """What the transports are handed: the two ways to start."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ

    def load(self) -> Result[Loaded, list[str]]:
        """Settings and catalog only (no data touched)."""
        return load(self.environ)

    async def start(
        self, *, anchors: bool = True, context: Loaded | None = None
    ) -> Result[Service, list[str]]:
        """A running service (from ``context`` when the caller has already loaded it)."""
        return await start(self.environ, anchors=anchors, context=context)


def main(argv: list[str] | None = None) -> int:
    """The ``sutura`` console script."""
    return run_cli(sys.argv[1:] if argv is None else argv, Wiring(process_environment()))
