"""``sutura sql STATEMENT``: the raw SQL tool from the command line, when it is enabled.

The same tool as MCP's ``run_sql`` and ``POST /v1/sql/run``: one read-only query against
``tools.run_sql.source``, ungoverned rows or a typed raw refusal, audited on the log. While
``tools.run_sql.enabled`` is false it runs nothing and says so. Exit codes: ``0`` rows, ``1``
refused or not enabled, ``2`` a statement that cannot be read (over the length cap, not text).
"""

import argparse
import sys

import anyio
from returns.result import Success

from sutura.boundary.answering import Service
from sutura.core.codec import convert_statement, raw_halves
from sutura.core.raw.outcome import RawOutcome, RawRows
from sutura.core.text.escape import escape_text
from sutura.transports.cli.output import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, emit, report
from sutura.transports.cli.wiring import Wiring

NOT_ENABLED = "sql: the raw SQL tool is not enabled on this deployment (tools.run_sql.enabled)"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Add ``sql`` to ``sub``."""
    sql = sub.add_parser(
        "sql", help="run one read-only SQL query with the raw tool (ungoverned; tools.run_sql)"
    )
    sql.add_argument("statement", help="one read-only SQL query; - reads it from stdin")
    sql.add_argument(
        "--json", action="store_true", help="print the structured half instead of the text half"
    )
    sql.set_defaults(handler=run_sql)


async def _run(wiring: Wiring, statement: str) -> RawOutcome | list[str]:
    started = await wiring.start(anchors=False)
    if not isinstance(started, Success):
        return list(started.failure())
    service: Service = started.unwrap()
    try:
        return await service.run_sql(statement)
    finally:
        await service.close()


def run_sql(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura sql``."""
    loaded = wiring.load()
    if not isinstance(loaded, Success):
        return report(loaded.failure())
    if not loaded.unwrap().loaded.settings.tools.run_sql.enabled:
        return report([NOT_ENABLED])
    text = args.statement
    if text == "-":
        text = sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    statement = convert_statement({"statement": text})
    if not isinstance(statement, Success):
        failure = statement.failure()
        sentence = f"malformed statement: {failure.path}: {failure.problem}"
        print(f"sutura: {escape_text(sentence)}", file=sys.stderr)
        return EXIT_USAGE
    outcome = anyio.run(_run, wiring, statement.unwrap().statement)
    if isinstance(outcome, list):
        return report(outcome)
    halves = raw_halves(outcome)
    emit(halves.structured.decode() if args.json else halves.text)
    rows = isinstance(outcome, RawRows) and halves.structured.startswith(b'{"outcome":"raw_rows"')
    return EXIT_OK if rows else EXIT_REFUSED
