"""``sutura completion bash|zsh``: a shell completion script, generated from the parser."""

import argparse

from sutura.transports.cli.output import EXIT_OK, emit
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

SHELLS = ("bash", "zsh")
EXAMPLE = """examples:
  sutura completion bash > ~/.local/share/bash-completion/completions/sutura
  sutura completion zsh > "${fpath[1]}/_sutura"   # then restart zsh"""


def register(verbs: Verbs) -> None:
    """Add ``completion``."""
    completion = verbs.add(
        "completion",
        "print a bash or zsh completion script for sutura",
        "Prints a completion script for every command, flag and fixed choice (grains, "
        "formats, schema names, document kinds), generated from the command line itself by "
        "shtab. Save it where your shell loads completions.",
        EXAMPLE,
    )
    completion.add_argument("shell", choices=SHELLS, help="bash or zsh")
    completion.set_defaults(handler=run_completion)


def run_completion(args: argparse.Namespace, _wiring: Wiring) -> int:
    """``sutura completion``."""
    import shtab  # only when a completion script is asked for

    from sutura.transports.cli.main import build_parser  # main registers this verb

    emit(shtab.complete(build_parser(), shell=args.shell))
    return EXIT_OK
