"""``python -m bench``: measure every section and print one performance table.

Each figure is measured beside its reference in the same run, and printed as a ratio. A
section that cannot run here (no PostgreSQL server, no Spark) is named below the table with
its reason; it is never left out silently.
"""

import importlib
import os
import sys

from bench.table import Figure
from bench.table import render as render_table

SECTIONS = ("answer", "render", "batch", "mcp", "http", "sources", "spark")


def main() -> int:
    """Measure the sections named by ``SUTURA_BENCH`` (comma-separated; default all)."""
    chosen = [s for s in os.environ.get("SUTURA_BENCH", ",".join(SECTIONS)).split(",") if s]
    figures: list[Figure] = []
    missing: list[str] = []
    for name in chosen:
        print(f"measuring {name} …", file=sys.stderr, flush=True)
        try:
            figures.extend(importlib.import_module(f"bench.{name}").measure())
        except Exception as err:  # a section that cannot run here is reported, not hidden
            missing.append(f"{name}: not measured ({type(err).__name__}: {err})")
    print(render_table(figures))
    for line in missing:
        print(line)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
