"""``sutura import dbt``: a dbt project's semantic layer written as catalog documents.

Reads ``target/semantic_manifest.json`` (what ``dbt parse`` writes) with the maintained
``dbt-semantic-interfaces`` package, each element's file from ``target/manifest.json`` (for the
report only), and the columns of every relation from the configured source — as ``sutura
init`` asks it — then hands them to the translation (:mod:`sutura.core.dbt.translate`) and
writes what it decides.

Re-runnable, with ``sutura init``'s rule: a file is never overwritten once its author edited
it. What each import wrote is remembered (a digest per file, in ``.sutura-import-dbt.json`` in
the catalog directory); a file that still holds exactly what was written is brought up to date,
one the author changed is kept and the fresh import is offered beside it as ``<file>.draft``
(no catalog document: ``check`` never reads it), and a file the project no longer produces is
removed only when it was not edited.
"""

import difflib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Final, NamedTuple

import msgspec
from dbt_semantic_interfaces.implementations.semantic_manifest import PydanticSemanticManifest
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.drafting import InitRequest, chosen_source, found_tables
from sutura.boundary.settings_files import LoadedSettings
from sutura.core.catalog.draft import DraftDocument, FoundTable
from sutura.core.catalog.error import quoted
from sutura.core.dbt.context import Rewritten, Skipped
from sutura.core.dbt.translate import Counts, Imported, import_manifest
from sutura.core.definitions.model import TablePath
from sutura.core.nouns.dialect import traits_of
from sutura.core.sql.planning import dialect_of
from sutura.core.text.escape import escape_text

STATE: Final = ".sutura-import-dbt.json"
REPORT: Final = "import-dbt-report.txt"
MANIFEST: Final = Path("target") / "semantic_manifest.json"


class ImportRequest(NamedTuple):
    """What ``sutura import dbt`` was asked: the dbt project, the source, where to write."""

    project: Path
    source: str | None
    into: Path | None


class ImportReport(NamedTuple):
    """What the import wrote, updated, kept, offered and removed, and what it left out."""

    catalog_dir: Path
    report_file: Path
    written: list[str]
    updated: list[str]
    unchanged: list[str]
    kept: list[str]
    offered: list[str]
    removed: list[str]
    skipped: tuple[Skipped, ...]
    counts: Counts
    changes: list[str]
    """Per updated or offered file, the lines that differ (``- old``, ``+ new``), a few each."""
    rewritten: tuple[Rewritten, ...] = ()
    """Each derived metric carried over as its parts or with a scale, and what was made of it."""


class _State(msgspec.Struct, forbid_unknown_fields=True):
    """What the last import wrote: each file's SHA-256, as written."""

    written: dict[str, str]


def read_manifest(project: Path) -> Result[PydanticSemanticManifest, str]:
    """The project's semantic manifest, parsed and validated by ``dbt-semantic-interfaces``."""
    path = project / MANIFEST
    label = escape_text(str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Failure(f"import dbt: {label}: no such file; run `dbt parse` in the project first")
    except (OSError, UnicodeDecodeError) as error:
        return Failure(f"import dbt: {label}: cannot be read ({type(error).__name__})")
    try:
        return Success(PydanticSemanticManifest.parse_raw(text))
    except Exception as error:  # pydantic's ValidationError, or malformed JSON
        first = str(error).splitlines()[0][:160] if str(error) else type(error).__name__
        return Failure(f"import dbt: {label}: not a semantic manifest ({quoted(first)})")


def element_files(project: Path) -> dict[str, str]:
    """Each semantic model's and metric's file (``metric.<name>`` → ``models/x.yml``), read
    from ``target/manifest.json`` when dbt wrote one; the report names the element's file."""
    try:
        raw = json.loads((project / "target" / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    files: dict[str, str] = {}
    for kind in ("semantic_models", "metrics"):
        nodes = raw.get(kind) if isinstance(raw, dict) else None
        for node in nodes.values() if isinstance(nodes, dict) else []:
            name, file = node.get("name"), node.get("original_file_path")
            if isinstance(name, str) and isinstance(file, str):
                files[f"{kind.removesuffix('s')}.{name}"] = file
    return files


async def import_dbt(
    loaded: LoadedSettings, environ: Mapping[str, str], request: ImportRequest
) -> Result[ImportReport, list[str]]:
    """Import the dbt project ``request`` names into the catalog directory."""
    manifest = read_manifest(request.project)
    if not is_successful(manifest):
        return Failure([manifest.failure()])
    alias = chosen_source(loaded, request.source)
    if not is_successful(alias):
        return Failure([alias.failure().replace("init:", "import dbt:", 1)])
    name = alias.unwrap()
    parsed = manifest.unwrap()
    tables = await _tables(loaded, environ, name, parsed)
    if not is_successful(tables):
        return Failure([tables.failure()])
    imported = import_manifest(parsed, tables.unwrap(), name, element_files(request.project))
    if not is_successful(imported):
        return Failure([f"import dbt: {imported.failure()}"])
    catalog_dir = request.into or loaded.resolve(loaded.settings.catalog.dir)
    return Success(_write(catalog_dir, imported.unwrap()))


async def _tables(
    loaded: LoadedSettings,
    environ: Mapping[str, str],
    alias: str,
    manifest: PydanticSemanticManifest,
) -> Result[dict[TablePath, FoundTable], str]:
    """The tables of every schema the semantic models' relations are in (the source's current
    one where it has no named schemas)."""
    schemas: set[str | None] = {None}
    if traits_of(dialect_of(loaded.settings.sources[alias])).schemas:
        schemas |= {m.node_relation.schema_name for m in manifest.semantic_models}
    tables: dict[TablePath, FoundTable] = {}
    for schema in sorted(schemas, key=lambda s: s or ""):
        found = await found_tables(loaded, environ, alias, InitRequest(alias, schema, ()))
        if not is_successful(found):
            if schema is None:
                return Failure(found.failure().replace("init:", "import dbt:", 1))
            continue  # a schema the source does not have: its relations are reported missing
        tables |= {table.table: table for table in found.unwrap().tables}
    return Success(tables)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _read_state(catalog_dir: Path) -> dict[str, str]:
    try:
        return msgspec.json.decode((catalog_dir / STATE).read_bytes(), type=_State).written
    except (OSError, msgspec.ValidationError, msgspec.DecodeError):
        return {}


def _write(catalog_dir: Path, imported: Imported) -> ImportReport:
    before = _read_state(catalog_dir)
    now: dict[str, str] = {}
    report = ImportReport(
        catalog_dir=catalog_dir,
        report_file=catalog_dir / REPORT,
        written=[],
        updated=[],
        unchanged=[],
        kept=[],
        offered=[],
        removed=[],
        skipped=imported.skipped,
        counts=imported.counts,
        changes=[],
        rewritten=imported.rewritten,
    )
    for document in imported.documents:
        now[document.path] = _place(catalog_dir, document, before.get(document.path), report)
    for gone in sorted(set(before) - set(now)):
        path = catalog_dir / gone
        current = _read_exact(path)
        if current is not None and _digest(current) == before[gone]:
            path.unlink()
            report.removed.append(gone)
        elif current is not None:
            report.kept.append(f"{gone} (gone from the dbt project; you edited it, so it stays)")
    catalog_dir.mkdir(parents=True, exist_ok=True)
    state = msgspec.json.encode(_State(written=dict(sorted(now.items()))))
    (catalog_dir / STATE).write_bytes(state + b"\n")
    report.report_file.write_text(report_text(report), encoding="utf-8", newline="\n")
    return report


def _place(
    catalog_dir: Path, document: DraftDocument, last: str | None, report: ImportReport
) -> str:
    """Write one document by the rule above; the digest to remember for it."""
    path = catalog_dir / document.path
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = _digest(document.text)
    current = _read_exact(path)
    if current is None:
        path.write_text(document.text, encoding="utf-8", newline="\n")
        report.written.append(document.path)
        return fresh
    if current == document.text:
        report.unchanged.append(document.path)
        return fresh
    if last is not None and _digest(current) == last:
        path.write_text(document.text, encoding="utf-8", newline="\n")
        report.updated.append(document.path)
        report.changes.extend(f"{document.path}: {line}" for line in _changes(current, document))
        return fresh
    if last == fresh:  # the author's edit, and nothing new from the dbt project
        report.kept.append(f"{document.path} (you edited it; the dbt project did not change it)")
        return last
    beside = f"{document.path}.draft"
    (catalog_dir / beside).write_text(document.text, encoding="utf-8", newline="\n")
    report.kept.append(f"{document.path} (you edited it)")
    report.offered.append(beside)
    report.changes.extend(f"{beside}: {line}" for line in _changes(current, document))
    return last if last is not None else _digest(current)


def _read_exact(path: Path) -> str | None:
    """The file's text exactly as written (no newline translation: a carriage return a
    description holds reads back as itself), or None when there is none."""
    return path.read_bytes().decode("utf-8") if path.is_file() else None


def _changes(before: str, document: DraftDocument) -> list[str]:
    """The lines that differ between ``before`` and the document now, at most eight."""
    diff = difflib.unified_diff(before.splitlines(), document.text.splitlines(), lineterm="", n=0)
    lines = [f"{line[0]} {line[1:].strip()}" for line in diff if line[:1] in "+-"]
    lines = [line for line in lines if not line.startswith(("+ ++", "- --"))]
    return lines[:8] + ([f"… {len(lines) - 8} more lines"] if len(lines) > 8 else [])


def report_text(report: ImportReport) -> str:
    """The report file: the counts, what was made of each derived metric written as its parts
    or with a scale, then every element not carried over, with its file."""
    counts = report.counts
    lines = [
        "sutura import dbt: what was carried over",
        f"semantic models: {counts.semantic_models[1]} of {counts.semantic_models[0]}",
        f"measures: {counts.measures[1]} of {counts.measures[0]} (in the metrics carried over)",
        f"dimensions: {counts.dimensions[1]} of {counts.dimensions[0]}"
        " (shared dimensions, each declared on its model)",
        f"metrics: {counts.metrics[1]} of {counts.metrics[0]}",
        f"semi-additive measures: {counts.semi_additive[1]} of {counts.semi_additive[0]}"
        " (non_additive_dimension, in the metrics carried over)",
        *(
            [f"derived metrics written as their parts or with a scale: {len(report.rewritten)}"]
            if report.rewritten
            else []
        ),
        *(f"  {escape_text(r.line())}" for r in report.rewritten),
        f"not carried over: {len(report.skipped)}",
        *(f"  {escape_text(s.line())}" for s in report.skipped),
        *(["changed since the last import:"] if report.changes else []),
        *(f"  {escape_text(line)}" for line in report.changes),
    ]
    return "\n".join(lines) + "\n"
