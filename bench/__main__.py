"""``python -m bench``: measure every section and print one performance table.

Each figure is measured beside its reference in the same run, and printed as a ratio. A
section that cannot run here (no PostgreSQL server, no Spark extra, no Java) is named below the
table as ``<section>: not measured: <reason>``; it is never left out silently, and it does not
fail the run (a fresh clone without the extras prints the rest and exits 0). A section that
breaks for any other reason is named as ``<section>: failed (...)`` and the exit status is 1.

``SUTURA_BENCH`` names the sections to run (comma-separated; default all);
``SUTURA_BENCH_SHORT=1`` shrinks every size to a smoke run (for tests of the bench itself).

Before measuring, the package's modules are byte-compiled, as installing its wheel does
(:mod:`bench.bytecode`).
"""

import importlib
import os
import sys

from bench.bytecode import compiled_package
from bench.table import Figure, NotMeasuredError
from bench.table import render as render_table

SECTIONS = (
    "answer",
    "long",
    "cache",
    "derived",
    "values",
    "values_postgres",
    "values_spark",
    "render",
    "batch",
    "mcp",
    "http",
    "operations",
    "identity",
    "soak",
    "scale",
    "stages",
    "sources",
    "spark",
    "tpch",
    "dbt",
)
_OURS = ("bench", "sutura", "tests")


def main() -> int:
    """Measure the sections named by ``SUTURA_BENCH`` (comma-separated; default all)."""
    chosen = [s for s in os.environ.get("SUTURA_BENCH", ",".join(SECTIONS)).split(",") if s]
    figures: list[Figure] = []
    notes: list[str] = []
    failed = False
    compiled_package()
    for name in chosen:
        print(f"measuring {name} …", file=sys.stderr, flush=True)
        try:
            figures.extend(importlib.import_module(f"bench.{name}").measure())
        except NotMeasuredError as absent:
            notes.append(f"{name}: not measured: {absent}")
        except ModuleNotFoundError as err:
            if (err.name or "").split(".")[0] in _OURS:
                notes.append(f"{name}: failed ({err})")
                failed = True
            else:
                notes.append(f"{name}: not measured: {err.name} is not installed")
        except Exception as err:  # a section that breaks is reported, and fails the run
            notes.append(f"{name}: failed ({type(err).__name__}: {err})")
            failed = True
    print(render_table(figures))
    for line in notes:
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
