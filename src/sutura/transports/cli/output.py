"""Exit codes and how the command line reports problems."""

import sys
from typing import TypeVar

from returns.pipeline import is_successful
from returns.result import Result

T = TypeVar("T")

EXIT_OK = 0
EXIT_REFUSED = 1
EXIT_USAGE = 2


def report(errors: list[str]) -> int:
    """Print problems to stderr, one per line, and return the refusal exit code."""
    for line in errors:
        print(f"sutura: {line}", file=sys.stderr)
    return EXIT_REFUSED


def unwrap_or_report(result: Result[T, list[str]]) -> T | int:
    """The value, or the exit code after reporting why there is none."""
    if is_successful(result):
        return result.unwrap()
    return report(result.failure())


def emit(text: str) -> None:
    """Write ``text`` to stdout as UTF-8, ending with exactly one newline."""
    out = sys.stdout
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()
