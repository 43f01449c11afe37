"""``sutura init``: draft the catalog from a configured source."""

import argparse
import shlex
from typing import TYPE_CHECKING

import anyio
from returns.result import Result

from sutura.core.text.escape import escape_text
from sutura.transports.cli.output import EXIT_OK, emit, unwrap_or_report
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

if TYPE_CHECKING:  # drafting (and its introspection) is imported only when `init` runs
    from sutura.boundary.drafting import InitReport

EXAMPLE = """examples:
  SUTURA_CONFIG_DIR=shop sutura init                       # every table of the only source
  SUTURA_CONFIG_DIR=shop sutura init --source warehouse --schema sales --table orders"""


def register(verbs: Verbs) -> None:
    """Add ``init``."""
    init = verbs.add(
        "init",
        "draft catalog documents from the tables of a configured source",
        "Reads a source configured in the settings (a DuckDB file, a directory of CSV/Parquet "
        "files, a PostgreSQL schema, a Spark database) and writes under catalog.dir one model "
        "per table with every column and its type, the primary key the source declares, one "
        "relationship per foreign key (PostgreSQL, DuckDB), and one count metric per model "
        "with a date or timestamp column, marked DRAFT. An existing file is never overwritten: "
        "run again after the source changed, it says which columns and tables changed against "
        "the models written and writes a fresh draft of each changed model beside it "
        "(<file>.draft). What it writes passes `sutura check`; the output lists what to review.",
        EXAMPLE,
    )
    init.add_argument("--source", help="the source alias to read (default: the only one)")
    init.add_argument(
        "--schema",
        help="postgres: the schema whose tables are drafted (default: public); spark: the"
        " database (default: the current one)",
    )
    init.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="NAME",
        help="draft only this table (repeat for several)",
    )
    init.set_defaults(handler=run_init)


def run_init(args: argparse.Namespace, wiring: Wiring) -> int:
    """``sutura init``."""
    from sutura.boundary.drafting import InitRequest, init_catalog
    from sutura.boundary.settings_files import unset_note

    loaded = unwrap_or_report(wiring.settings())
    if isinstance(loaded, int):
        return loaded
    request = InitRequest(source=args.source, schema=args.schema, tables=args.table)

    async def main() -> "Result[InitReport, list[str]]":
        return await init_catalog(loaded, wiring.environ, request)

    done = unwrap_or_report(anyio.run(main).alt(lambda p: [*unset_note(wiring.environ), *p]))
    if isinstance(done, int):
        return done
    emit(init_summary(done, wiring.environ.get("SUTURA_CONFIG_DIR")))
    return EXIT_OK


def init_summary(done: "InitReport", config_dir: str | None) -> str:
    """What was written and kept, what to review, and the next command."""
    where = escape_text(str(done.catalog_dir))
    lines = [f"init: wrote {len(done.written)} file(s) under {where}/"]
    lines += [f"  wrote {escape_text(p)}" for p in done.written]
    lines += [f"  kept  {escape_text(p)} (it exists; nothing was overwritten)" for p in done.kept]
    if done.changed:
        lines.append("changed in the source since these models were written:")
        lines += [f"  {line}" for line in done.changed]
    if done.offered:
        lines.append(
            "offered beside them (the source's columns now; your files are kept as they are):"
        )
        lines += [f"  wrote {escape_text(p)}" for p in done.offered]
    review = [
        *(f"{escape_text(p)}: a DRAFT metric — check what it counts" for p in done.draft_metrics),
        *(escape_text(note) for note in done.notes),
        "models/*.md: describe each model and its columns (the text after the front matter)",
        "add relationships, dimensions, filters and an anchor per metric (docs/catalog.md)",
    ]
    lines += ["review next:", *(f"  - {line}" for line in review)]
    prefix = f"SUTURA_CONFIG_DIR={shlex.quote(escape_text(config_dir))} " if config_dir else ""
    lines.append(f"next: {prefix}sutura check")
    return "\n".join(lines)
