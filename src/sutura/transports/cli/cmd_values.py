"""``sutura values METRIC DIMENSION``: the distinct values of one dimension of a metric.

The same capability as MCP's ``list_values`` and ``POST /v1/values``: one page of the values,
ascending with NULL (``\\N``) last, optionally only those containing ``--search`` (A-Z in either
case), at most ``--page-size`` from ``--offset``; the last line says where the next page
starts, or that this is the last. Exit codes: ``0`` a page, ``1`` refused, ``2`` malformed
arguments.
"""

import argparse
import sys

from sutura.transports.cli.formats import add_format_arguments, chosen_format
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring


def register(verbs: Verbs) -> None:
    """Add ``values``."""
    values = verbs.add(
        "values",
        "list the distinct values of one dimension of a metric (to filter on)",
        "Lists one page of the distinct values a metric's dimension takes in the data (the "
        "metric's required filters apply), ascending with NULL last: list_values. --search "
        "keeps the values containing its text (A-Z matched in either case); a page holds at "
        "most --page-size values (1 to 1000, default 100) and 64 KiB, and its last line gives "
        "the next page's offset. Exit 0 a page, 1 refused, 2 malformed.",
        "sutura values revenue region --search eu --page-size 20",
    )
    values.add_argument("metric", help="a metric the catalog lists")
    values.add_argument("dimension", help="one of the metric's dimensions")
    values.add_argument("--search", help="keep the values containing this text")
    values.add_argument("--page-size", type=int, help="values per page, 1 to 1000 (default 100)")
    values.add_argument("--offset", type=int, help="values to skip: a page's next offset")
    add_format_arguments(values)
    values.set_defaults(handler=run_values)


def run_values(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura values``."""
    from sutura.core.tool.capability import Capability
    from sutura.transports.cli.calling import call_once

    arguments: dict[str, object] = {"metric": args.metric, "dimension": args.dimension}
    if args.search is not None:
        arguments["search"] = args.search
    if args.page_size is not None:
        arguments["page_size"] = args.page_size
    if args.offset is not None:
        arguments["offset"] = args.offset
    fmt = chosen_format(args, terminal=sys.stdout.isatty())
    return call_once(wiring, Capability.LIST_VALUES, arguments, fmt=fmt, anchors=False)
