"""How a verb is added: what it does, in a line and in a paragraph, with an example.

Every verb also takes ``--verbose`` (as the command does before it), so it works on either side.
"""

import argparse
import textwrap
from typing import Final

VERBOSE_HELP: Final = "log details (and causes of failures) to stderr"


class Verbs:
    """The subcommands of ``sutura``."""

    def __init__(self, sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
        self._sub = sub

    def add(
        self, name: str, summary: str, description: str, example: str
    ) -> argparse.ArgumentParser:
        """A verb: ``summary`` in ``sutura --help``, ``description`` and ``example`` in its own."""
        epilog = example if example.startswith("example") else f"example:\n  {example}"
        head = f"{summary[0].upper()}{summary[1:]}."
        parser = self._sub.add_parser(
            name,
            help=summary,
            description=f"{textwrap.fill(head, 79)}\n\n{textwrap.fill(description, 79)}",
            epilog=epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        parser.add_argument(
            "--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP
        )
        return parser
