"""``sutura``: the command line. Exit codes: 0 answered, 1 refused or failed, 2 usage."""

import argparse
import logging
import sys
from collections.abc import Callable

from sutura import __version__
from sutura.transports.cli import commands
from sutura.transports.cli.log_volume import RepeatLimit
from sutura.transports.cli.output import EXIT_REFUSED, EXIT_USAGE
from sutura.transports.cli.verbs import VERBOSE_HELP, Verbs
from sutura.transports.cli.wiring import Wiring

INTERNAL = (
    "sutura: internal error; nothing was answered (run with --verbose to see the cause on stderr)"
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command and its flags; or only ``command``'s, for a command line that names it
    (:func:`named_command`): it parses that line exactly as the whole parser does."""
    parser = argparse.ArgumentParser(
        prog="sutura",
        description="Certified answers from governed metric definitions, or a typed refusal. "
        "`sutura COMMAND --help` describes each command, with an example.",
        epilog="Settings: SUTURA_CONFIG_DIR (base.yaml, <environment>.yaml), "
        "SUTURA_ENVIRONMENT, SUTURA__A__B.",
    )
    parser.add_argument("--version", action="version", version=f"sutura {__version__}")
    parser.add_argument("--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.register(Verbs(sub), command)
    return parser


def named_command(argv: list[str]) -> str | None:
    """The command ``argv`` runs, when nothing before it but ``--verbose`` needs the others
    (help, the version, a mistyped command or option all do); else None.

    >>> named_command(["--verbose", "mcp"]), named_command(["mcp", "--help"])
    ('mcp', 'mcp')
    >>> named_command(["--help", "mcp"]), named_command(["mpc"]), named_command([])
    (None, None, None)
    """
    for word in argv:
        if word != "--verbose":
            return word if word in commands.COMMANDS else None
    return None


def run_cli(argv: list[str], wiring: Wiring) -> int:
    """Run one command; never lets a traceback reach the user."""
    parser = build_parser(named_command(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code) if isinstance(exit_.code, int) else EXIT_USAGE
    _configure_logging(verbose=args.verbose, serves=getattr(args, "serves", False))
    handler: Callable[[argparse.Namespace, Wiring], int] = args.handler
    try:
        return handler(args, wiring)
    except KeyboardInterrupt:
        print("sutura: interrupted", file=sys.stderr)
        return EXIT_REFUSED
    except Exception:
        logging.getLogger("sutura").debug("internal error", exc_info=True)
        print(INTERNAL, file=sys.stderr)
        return EXIT_REFUSED


def _configure_logging(*, verbose: bool, serves: bool) -> None:
    """Log to stderr. A server's stderr is its operator's log, so a driver's complaint is
    logged there; a one-shot command keeps it off the terminal unless ``--verbose``. A
    complaint repeated is logged a few times a minute (:class:`RepeatLimit`)."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RepeatLimit())
    if not verbose and not serves:
        logging.getLogger("sutura.source").setLevel(logging.ERROR)
