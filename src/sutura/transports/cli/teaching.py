"""Usage errors that teach: a grain the question flags name that is no grain, answered with
every grain and the grains each named metric lists (read from the catalog only then)."""

import argparse
import sys

from returns.pipeline import is_successful

from sutura.core.nouns.grain import GRAIN_ORDER
from sutura.transports.cli.output import EXIT_USAGE
from sutura.transports.cli.wiring import Wiring


def unknown_grain(args: argparse.Namespace, wiring: Wiring) -> int | None:
    """Exit 2 after naming the grains, when ``--grain`` is none; None when it is one (or absent).

    The value written is never repeated (docs/cli.md): only the grains it could have been.
    """
    if args.grain is None or args.grain in {g.value for g in GRAIN_ORDER}:
        return None
    every = ", ".join(g.value for g in GRAIN_ORDER)
    lines = [f"malformed question: $.grain: expected one of {every}"]
    loaded = wiring.load()
    if is_successful(loaded):
        catalog = loaded.unwrap().pinned.catalog
        for name in dict.fromkeys(args.metrics):
            metric = catalog.metric(name)
            if metric is not None:
                grains = ", ".join(g.value for g in GRAIN_ORDER if g in metric.grains)
                lines.append(f"  the metric {metric.name} lists: {grains}")
    for line in lines:
        print(f"sutura: {line}", file=sys.stderr)
    return EXIT_USAGE
