"""``sutura import dbt``: a dbt project's semantic models and metrics as catalog documents."""

import argparse
import shlex
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from returns.result import Result

from sutura.core.text.escape import escape_text
from sutura.transports.cli.output import EXIT_OK, emit, report, unwrap_or_report
from sutura.transports.cli.verbs import VERBOSE_HELP, Verbs
from sutura.transports.cli.wiring import Wiring

if TYPE_CHECKING:  # the import (and dbt-semantic-interfaces) is loaded only when it runs
    from sutura.boundary.dbt_import import ImportReport

SUMMARY = "write catalog documents from another semantic layer's definitions (dbt)"
DBT_DESCRIPTION = (
    "Reads a dbt project's target/semantic_manifest.json (run `dbt parse` first) with "
    "dbt-semantic-interfaces, and the columns of every relation its semantic models read from "
    "a configured source (the warehouse dbt built), then writes under catalog.dir (or --into) "
    "one model per semantic model, a many_to_one relationship per foreign entity that is "
    "another model's primary one, and a metric per simple, ratio and derived metric, each "
    "listing the dimensions MetricFlow would let it be grouped by; every expr and filter is "
    "translated into the typed expression vocabulary, never copied as SQL. It prints, and "
    "writes to import-dbt-report.txt in the catalog directory, what was carried over and each "
    "element that was not, with its file and the reason. Run again after the dbt project "
    "changed: it updates what it wrote, removes what the project no longer has, and never "
    "overwrites a file you edited (the fresh import is written beside it as <file>.draft). "
    "What it writes passes `sutura check`. Mapping: docs/import-dbt.md."
)
DBT_EXAMPLE = """example:
  SUTURA_CONFIG_DIR=shop sutura import dbt ../jaffle-shop --source warehouse"""


def register(verbs: Verbs) -> None:
    """Add ``import`` and its one kind, ``dbt``."""
    command = verbs.add(
        "import",
        SUMMARY,
        "Writes catalog documents from the definitions another semantic layer keeps, saying "
        "what could not be carried over. Kinds: dbt (dbt semantic models and metrics, as "
        "MetricFlow answers them).",
        "SUTURA_CONFIG_DIR=shop sutura import dbt ../jaffle-shop",
    )
    kinds = command.add_subparsers(dest="kind", metavar="KIND", required=True)
    dbt = kinds.add_parser(
        "dbt",
        help="a dbt project's semantic models and metrics",
        description="Import a dbt project's semantic layer.\n\n"
        + textwrap.fill(DBT_DESCRIPTION, 79),
        epilog=DBT_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dbt.add_argument("path", metavar="PATH", help="the dbt project (where dbt_project.yml is)")
    dbt.add_argument(
        "--source", help="the source alias holding the project's relations (default: the only one)"
    )
    dbt.add_argument(
        "--into", metavar="DIR", help="the catalog directory to write (default: catalog.dir)"
    )
    dbt.add_argument("--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP)
    dbt.set_defaults(handler=run_import_dbt)


def run_import_dbt(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura import dbt PATH``."""
    from sutura.boundary.settings_files import unset_note

    try:
        from sutura.boundary.dbt_import import ImportRequest, import_dbt
    except ImportError:
        return report(
            ["import dbt: dbt-semantic-interfaces is not installed; pip install 'sutura[dbt]'"]
        )
    loaded = unwrap_or_report(wiring.settings())
    if isinstance(loaded, int):
        return loaded
    into = Path(args.into) if args.into is not None else None
    request = ImportRequest(project=Path(args.path), source=args.source, into=into)

    async def main() -> "Result[ImportReport, list[str]]":
        return await import_dbt(loaded, wiring.environ, request)

    done = unwrap_or_report(anyio.run(main).alt(lambda p: [*unset_note(wiring.environ), *p]))
    if isinstance(done, int):
        return done
    emit(import_summary(done, wiring.environ.get("SUTURA_CONFIG_DIR")))
    return EXIT_OK


def import_summary(done: "ImportReport", config_dir: str | None) -> str:
    """What was written, updated, kept and left out, and the next command."""
    where = escape_text(str(done.catalog_dir))
    counts = done.counts
    lines = [
        f"import dbt: {len(done.written)} written, {len(done.updated)} updated,"
        f" {len(done.unchanged)} unchanged, {len(done.removed)} removed under {where}/",
        *(f"  wrote   {escape_text(p)}" for p in done.written),
        *(f"  updated {escape_text(p)} (the dbt project changed)" for p in done.updated),
        *(f"  removed {escape_text(p)} (gone from the dbt project)" for p in done.removed),
        *(f"  kept    {escape_text(p)}" for p in done.kept),
        *(
            f"  offered {escape_text(p)} (the import now; compare it with yours)"
            for p in done.offered
        ),
        "carried over:"
        f" {counts.semantic_models[1]} of {counts.semantic_models[0]} semantic models,"
        f" {counts.measures[1]} of {counts.measures[0]} measures,"
        f" {counts.dimensions[1]} of {counts.dimensions[0]} dimensions,"
        f" {counts.metrics[1]} of {counts.metrics[0]} metrics"
        + (
            f" ({counts.semi_additive[1]} of {counts.semi_additive[0]} semi-additive measures)"
            if counts.semi_additive[0]
            else ""
        ),
    ]
    if done.changes:
        lines.append("changed in the dbt project since the last import:")
        lines += [f"  {escape_text(line)}" for line in done.changes]
    if done.rewritten:
        lines.append(
            f"derived metrics written as their parts or with a scale ({len(done.rewritten)}):"
        )
        lines += [f"  {escape_text(r.line())}" for r in done.rewritten]
    if done.skipped:
        lines.append(f"not carried over ({len(done.skipped)}):")
        lines += [f"  {escape_text(s.line())}" for s in done.skipped]
    lines.append(f"report: {escape_text(str(done.report_file))}")
    prefix = f"SUTURA_CONFIG_DIR={shlex.quote(escape_text(config_dir))} " if config_dir else ""
    lines.append(f"next: {prefix}sutura check")
    return "\n".join(lines)
