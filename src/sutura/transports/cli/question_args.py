"""Question flags of ``sutura query`` and ``sutura compile``, turned into a question document.

The document is decoded by the core's one codec, like a question any other surface receives.
Flags that conflict, or that mean nothing without another, are usage errors (exit 2) — never
silently ignored: ``--top`` needs ``--top-by`` and ``--top-by``/``--top-direction``/
``--top-per-period`` need ``--top``; ``--last`` excludes ``--from``/``--to``;
``--include-current`` needs ``--last``; ``--running`` excludes ``--trailing``;
``--question`` excludes every other question flag.

Filters: ``--where DIM=VALUE`` (repeated on one dimension: any of the values),
``--where-not DIM=VALUE``, ``--where 'DIM<VALUE'`` (and ``<=``, ``>``, ``>=``),
``--where-between DIM LOW HIGH``, ``--where-null DIM`` and ``--where-not-null DIM``; each value is
text the core types by its dimension (a number, a date, true or false, or text).
"""

import argparse
import re
import sys
from pathlib import Path
from typing import Final

from sutura.core.tool.arguments import Arguments

QUESTION_EXAMPLE = """\
examples:
  sutura {verb} revenue --grain month --from 2024-01-01 --to 2024-07-01 --by channel
  sutura {verb} order_count --grain week --last 4 week --include-current
  sutura {verb} revenue --grain quarter --last 4 quarter --by region --top 3 --top-by revenue
  sutura {verb} revenue --grain month --from 2024-01-01 --to 2025-01-01 --compare previous_year
  sutura {verb} revenue --grain month --last 12 month --trailing 3 --fill
  sutura {verb} revenue --grain month --last 6 month --by channel --top 1 --top-by revenue \
                --top-per-period
  sutura {verb} revenue --grain month --last 6 month --where 'amount_band>=2' \
                --where-between day 2024-01-01 2024-03-31 --where-not-null segment
  sutura {verb} revenue --from 2024-03-10 --to 2024-04-20 --by channel   (no grain: exactly)
  sutura {verb} revenue --grain quarter --last 4 quarter --where segment=business \
                --where-not-null region
  sutura {verb} discount_revenue --grain year --from 1994-01-01 --to 1995-01-01 \
                --where 'quantity<24' --where-between discount 0.05 0.07
  sutura {verb} --question '{{"metrics": ["revenue"], "grain": "year",
                "range": {{"start": "2023-01-01", "end": "2025-01-01"}}}}'
"""


class UsageError(Exception):
    """Flags that conflict or that mean nothing alone (exit 2, naming the flags)."""


def add_question_arguments(parser: argparse.ArgumentParser) -> None:
    """Flags that build a question, or ``--question`` carrying one as JSON."""
    parser.add_argument("metrics", nargs="*", metavar="METRIC", help="metric names to ask about")
    parser.add_argument(
        "--question",
        metavar="JSON",
        help="the whole question as JSON, @FILE to read a file, - for stdin "
        "(no other question flag with it)",
    )
    parser.add_argument(
        "--grain",
        help="day, week, month, quarter or year (one the metric lists); without it, one row per"
        " group over exactly the range",
    )
    parser.add_argument("--from", dest="start", metavar="DATE", help="first day (ISO), inclusive")
    parser.add_argument("--to", dest="end", metavar="DATE", help="last bound (ISO), exclusive")
    parser.add_argument(
        "--last",
        nargs=2,
        metavar=("COUNT", "UNIT"),
        help="the last COUNT whole UNITs (day, week, month, quarter, year) before the current one",
    )
    parser.add_argument(
        "--include-current",
        action="store_true",
        help="with --last: the current, unfinished unit is the last of the COUNT",
    )
    parser.add_argument(
        "--by", action="append", default=[], metavar="DIMENSION", help="group by a dimension"
    )
    parser.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="DIM=VALUE",
        help="keep rows where DIM is VALUE (repeat for several values); or DIM<VALUE, "
        "DIM<=VALUE, DIM>VALUE, DIM>=VALUE for a number, date or timestamp",
    )
    parser.add_argument(
        "--where-not",
        action="append",
        default=[],
        metavar="DIM=VALUE",
        help="drop rows where DIM is VALUE (repeat for several values)",
    )
    parser.add_argument(
        "--where-between",
        action="append",
        default=[],
        nargs=3,
        metavar=("DIM", "LOW", "HIGH"),
        help="keep rows where DIM is from LOW to HIGH, both included",
    )
    parser.add_argument(
        "--where-null",
        action="append",
        default=[],
        metavar="DIM",
        help="keep rows where DIM is NULL",
    )
    parser.add_argument(
        "--where-not-null",
        action="append",
        default=[],
        metavar="DIM",
        help="keep rows where DIM is not NULL",
    )
    parser.add_argument("--top", type=int, metavar="N", help="keep the first N rows by --top-by")
    parser.add_argument(
        "--top-by", metavar="METRIC", help="with --top: the metric (or period) that orders rows"
    )
    parser.add_argument(
        "--top-direction", choices=("asc", "desc"), help="with --top: desc (default) or asc"
    )
    parser.add_argument(
        "--top-per-period",
        action="store_true",
        help="with --top: keep the first N rows of each period",
    )
    parser.add_argument(
        "--compare",
        choices=("previous_period", "previous_year"),
        help="add each metric's prior value, change and relative change",
    )
    parser.add_argument(
        "--running", action="store_true", help="add a running total from the range start"
    )
    parser.add_argument(
        "--trailing", type=int, metavar="N", help="add the total of the last N periods"
    )
    parser.add_argument(
        "--fill",
        action="store_true",
        help="every period of the range has a row (zero for sums and counts)",
    )


_QUESTION_FLAGS = {
    "metrics": "METRIC",
    "grain": "--grain",
    "start": "--from",
    "end": "--to",
    "last": "--last",
    "include_current": "--include-current",
    "by": "--by",
    "where": "--where",
    "where_not": "--where-not",
    "where_between": "--where-between",
    "where_null": "--where-null",
    "where_not_null": "--where-not-null",
    "top": "--top",
    "top_by": "--top-by",
    "top_direction": "--top-direction",
    "top_per_period": "--top-per-period",
    "compare": "--compare",
    "running": "--running",
    "trailing": "--trailing",
    "fill": "--fill",
}


def _given(args: argparse.Namespace) -> list[str]:
    """The question flags given on the command line, as the user spelled them."""
    return [
        flag
        for dest, flag in _QUESTION_FLAGS.items()
        if getattr(args, dest) not in (None, False, [])
    ]


def _conflicts(args: argparse.Namespace) -> str | None:
    given = _given(args)
    if args.question is not None and given:
        return f"--question carries the whole question; drop {', '.join(given)}"
    if args.last is not None and (args.start is not None or args.end is not None):
        return "--last and --from/--to are two ways to name the period; give one"
    if args.include_current and args.last is None:
        return "--include-current applies to --last only"
    if args.top is not None and args.top_by is None:
        return "--top needs --top-by (a metric of the question, or period)"
    if args.top is None and (
        args.top_by is not None or args.top_direction is not None or args.top_per_period
    ):
        return "--top-by, --top-direction and --top-per-period apply to --top only"
    if args.running and args.trailing is not None:
        return "--running and --trailing are two windows; give one"
    return None


def question_arguments(args: argparse.Namespace) -> Arguments:
    """The question the flags describe, as arguments the core decodes.

    Raises:
        UsageError: flags that conflict or mean nothing alone; or a ``--question`` file that
            cannot be read.
    """
    problem = _conflicts(args)
    if problem is not None:
        raise UsageError(problem)
    if args.question is not None:
        read = _read_json(args.question)
        if isinstance(read, str):
            raise UsageError(read)
        return read
    return _document(args)


def _read_json(spec: str) -> bytes | str:
    """The bytes of ``--question``, or the problem reading them."""
    try:
        if spec == "-":
            return sys.stdin.buffer.read()
        if spec.startswith("@"):
            return Path(spec[1:]).read_bytes()
    except OSError as error:
        return f"--question: the file cannot be read ({error.strerror or 'unreadable'})"
    return spec.encode("utf-8", "surrogatepass")


def _document(args: argparse.Namespace) -> dict[str, object]:
    document: dict[str, object] = {"metrics": list(args.metrics)}
    if args.grain is not None:
        document["grain"] = args.grain
    if args.last is not None:
        count, unit = args.last
        document["range"] = {
            "last": {
                "count": _int_or_text(count),
                "unit": unit,
                "include_current": args.include_current,
            }
        }
    elif args.start is not None or args.end is not None:
        document["range"] = {"start": args.start, "end": args.end}
    if args.by:
        document["dimensions"] = list(args.by)
    filters = _filters(args)
    if filters:
        document["filters"] = filters
    return {**document, **_top_and_derived(args)}


def _top_and_derived(args: argparse.Namespace) -> dict[str, object]:
    """``top``, ``compare``, ``window`` and ``fill`` as the flags give them."""
    document: dict[str, object] = {}
    if args.top is not None:
        top: dict[str, object] = {"n": args.top, "by": args.top_by}
        if args.top_direction is not None:
            top["direction"] = args.top_direction
        if args.top_per_period:
            top["per"] = "period"
        document["top"] = top
    if args.compare is not None:
        document["compare"] = {"to": args.compare}
    if args.running:
        document["window"] = {"running": True}
    elif args.trailing is not None:
        document["window"] = {"trailing": args.trailing}
    if args.fill:
        document["fill"] = True
    return document


_COMPARED: Final = re.compile(r"(?P<dimension>[^<>=]*)(?P<op><=|>=|<|>|=)(?P<value>.*)", re.S)
_OPS: Final = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def _filters(args: argparse.Namespace) -> list[dict[str, object]]:
    """The filters of ``--where`` (equalities grouped into ``in`` per dimension, comparisons
    each its own), ``--where-not``, ``--where-between``, ``--where-null``, ``--where-not-null``."""
    equal: list[str] = []
    compared: list[dict[str, object]] = []
    for spec in args.where:
        found = _COMPARED.fullmatch(spec)
        if found is None:
            raise UsageError(
                "--where takes DIM=VALUE, DIM<VALUE, DIM<=VALUE, DIM>VALUE or DIM>=VALUE"
            )
        dimension, op, value = found.group("dimension", "op", "value")
        if op == "=":
            equal.append(spec)
        else:
            compared.append({"op": _OPS[op], "dimension": dimension, "value": value})
    between = [
        {"op": "between", "dimension": d, "low": low, "high": high}
        for d, low, high in args.where_between
    ]
    nulls = [{"op": "is_null", "dimension": d} for d in args.where_null]
    nulls += [{"op": "is_not_null", "dimension": d} for d in args.where_not_null]
    grouped = _grouped(equal, "in") + _grouped(args.where_not, "not_in")
    return grouped + compared + between + nulls


def _grouped(pairs: list[str], op: str) -> list[dict[str, object]]:
    grouped: dict[str, list[str]] = {}
    for pair in pairs:
        dimension, _, value = pair.partition("=")
        grouped.setdefault(dimension, []).append(value)
    return [{"op": op, "dimension": d, "values": v} for d, v in grouped.items()]


def _int_or_text(text: str) -> int | str:
    return int(text) if text.isdigit() else text
