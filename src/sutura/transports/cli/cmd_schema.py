"""``sutura schema catalog|settings``: the JSON Schemas the package ships."""

import argparse
import json
import sys

from sutura.core.catalog.document.parse import DocumentKind
from sutura.core.json_schemas import SCHEMA_NAMES, kind_schema
from sutura.transports.cli.output import EXIT_OK, EXIT_USAGE, emit
from sutura.transports.cli.verbs import Verbs
from sutura.transports.cli.wiring import Wiring

EXAMPLE = """examples:
  sutura schema settings > schemas/settings.schema.json
  sutura schema catalog --kind metric"""


def register(verbs: Verbs) -> None:
    """Add ``schema``."""
    schema = verbs.add(
        "schema",
        "print the JSON Schema of catalog documents or of a settings file",
        "Prints the JSON Schema (draft 2020-12) generated from the types that decode catalog "
        "front matter (every kind, or one with --kind) or a settings file. Point an editor at "
        "it with a `# yaml-language-server: $schema=PATH` line; `init` and `example` write "
        "copies under schemas/ and that line in every file they write. Touches no data.",
        EXAMPLE,
    )
    schema.add_argument("name", choices=SCHEMA_NAMES, help="catalog or settings")
    schema.add_argument(
        "--kind",
        choices=[kind.value for kind in DocumentKind],
        help="catalog: only the documents of this kind",
    )
    schema.set_defaults(handler=run_schema)


def run_schema(args: argparse.Namespace, _wiring: Wiring) -> int:
    """``sutura schema``."""
    from sutura.boundary.schema_files import shipped_text

    if args.kind is None:
        emit(shipped_text(args.name))
        return EXIT_OK
    if args.name != "catalog":
        print("sutura: schema: --kind applies to the catalog schema", file=sys.stderr)
        return EXIT_USAGE
    emit(json.dumps(kind_schema(DocumentKind(args.kind)), indent=2, ensure_ascii=False))
    return EXIT_OK
