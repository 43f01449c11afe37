"""``sutura sql STATEMENT``: the raw SQL tool from the command line, when it is enabled.

The same capability as MCP's ``run_sql`` and ``POST /v1/sql/run``: one read-only query against
``tools.run_sql.source``, ungoverned rows or a typed raw refusal, audited. While
``tools.run_sql.enabled`` is false it runs nothing and says so. Exit codes: ``0`` rows, ``1``
refused or not enabled, ``2`` a statement that cannot be read (over the length cap, not text).
"""

import argparse
import sys

from sutura.transports.cli.formats import add_format_arguments, chosen_format
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring


def register(verbs: Verbs) -> None:
    """Add ``sql``."""
    sql = verbs.add(
        "sql",
        "run one read-only SQL query with the raw tool (ungoverned; tools.run_sql)",
        "Runs one read-only SQL statement against tools.run_sql.source, when the operator has "
        "enabled the tool. Its rows are ungoverned: never certified, no provenance. Exit 0 "
        "rows, 1 refused or not enabled, 2 a statement that cannot be read.",
        "sutura sql 'SELECT count(*) FROM orders'",
    )
    sql.add_argument("statement", help="one read-only SQL query; - reads it from stdin")
    add_format_arguments(sql)
    sql.set_defaults(handler=run_sql)


def run_sql(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura sql``."""
    from sutura.core.tool.capability import Capability
    from sutura.transports.cli.calling import call_once

    text = args.statement
    if text == "-":
        text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    arguments = {"statement": text}
    fmt = chosen_format(args, terminal=sys.stdout.isatty())
    return call_once(wiring, Capability.RUN_SQL, arguments, fmt=fmt, anchors=False)
