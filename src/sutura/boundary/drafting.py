"""``sutura init``: draft a catalog from a configured source, never overwriting a file.

The source is opened as every command opens it, asked for its tables (:mod:`.introspect`),
and the drafts (:mod:`sutura.core.catalog.draft`) are written under ``catalog.dir``: a file that
already exists is kept as it is and named in the report.
"""

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.catalog_files import read_document, walk_catalog
from sutura.boundary.schema_files import modeline_for, write_schema_copies
from sutura.boundary.settings_files import LoadedSettings
from sutura.boundary.sources.introspect import Found, introspect
from sutura.boundary.sources.open import open_source
from sutura.boundary.sources.skeleton import Faulted, bounded
from sutura.core.catalog.document.parse import parse_document
from sutura.core.catalog.draft import Draft, FoundTable, draft_catalog
from sutura.core.catalog.drift import ModelDrift, model_drift
from sutura.core.catalog.error import quoted
from sutura.core.definitions.model import Model, table_label
from sutura.core.nouns.dialect import Dialect, traits_of
from sutura.core.nouns.setting_keys import key_path
from sutura.core.sql.planning import dialect_of

KINDS = "duckdb, postgres, spark"


class InitRequest(NamedTuple):
    """What ``sutura init`` was asked: which source, which schema, which tables (all when empty)."""

    source: str | None
    schema: str | None
    tables: Sequence[str]


class InitReport(NamedTuple):
    """What was written, what was kept, and what the author should review: what changed in
    the source since the authored models were written, and the drafts offered beside them."""

    catalog_dir: Path
    written: list[str]
    kept: list[str]
    notes: list[str]
    draft_metrics: list[str]
    changed: tuple[str, ...] = ()
    offered: tuple[str, ...] = ()


def chosen_source(loaded: LoadedSettings, asked: str | None) -> Result[str, str]:
    """The alias to read: the one asked for, or the only one configured."""
    sources = sorted(loaded.settings.sources)
    if asked is not None and asked not in sources:
        listed = ", ".join(sources) or "none"
        return Failure(f"init: --source {quoted(asked)}: no such source (configured: {listed})")
    if asked is not None:
        return Success(asked)
    if len(sources) == 1:
        return Success(sources[0])
    if not sources:
        return Failure(
            "init: no source is configured; add one under `sources:` in base.yaml"
            f" (kind: one of {KINDS})"
        )
    return Failure(
        f"init: several sources are configured ({', '.join(sources)}); pick one with --source"
    )


async def init_catalog(
    loaded: LoadedSettings,
    environ: Mapping[str, str],
    request: InitRequest,
) -> Result[InitReport, list[str]]:
    """Draft the catalog from the source ``request`` names and write what is not there yet."""
    alias = chosen_source(loaded, request.source)
    if not is_successful(alias):
        return Failure([alias.failure()])
    name = alias.unwrap()
    settings = loaded.settings.sources[name]
    dialect = dialect_of(settings)
    if request.schema is not None and not traits_of(dialect).schemas:
        return Failure(
            [f"init: --schema applies to postgres and spark sources; {name} is {dialect}"]
        )
    found = await found_tables(loaded, environ, name, request)
    if not is_successful(found):
        return Failure([found.failure()])
    tables = found.unwrap()
    if tables.missing:
        have = ", ".join(table_label(t.table) for t in tables.tables) or "none"
        return Failure(
            [
                f"init: --table {quoted(m)}: the source {name} has no such table"
                for m in tables.missing
            ]
            + ([f"init: tables found: {have}"] if not request.tables else [])
        )
    unread = [
        f"table {quoted(table_label(t))}: the source would not describe it to this role"
        " (a missing grant?), so no model"
        for t in tables.unreadable
    ]
    if not tables.tables:
        return Failure(
            [f"init: the source {name} holds no table to draft a model from"]
            + [f"init: {note}" for note in unread]
        )
    catalog_dir = loaded.resolve(loaded.settings.catalog.dir)
    schemas = write_schema_copies(loaded.base_dir, replace=False)
    # Every draft sits one directory down (models/, metrics/, relationships/).
    line = modeline_for(schemas["catalog"], catalog_dir / "models")
    draft = draft_catalog(
        name, tables.tables, tables.foreign_keys, schema_modeline=line, dialect=dialect
    )
    report = _write(catalog_dir, draft)
    authored = _authored_models(catalog_dir, name)
    every = not request.tables
    drifts = model_drift(authored, tables.tables, dialect, every_table=every)
    offered = _offer(catalog_dir, drifts, tables.tables, name, line, dialect)
    changed = [text for drift in drifts for text in drift.lines()]
    return Success(
        report._replace(
            notes=[*unread, *report.notes], changed=tuple(changed), offered=tuple(offered)
        )
    )


def _authored_models(catalog_dir: Path, alias: str) -> list[tuple[str, Model]]:
    """The models of the catalog (file, model) that read ``alias``; a file that does not parse
    (an author mid-edit) is passed over: ``sutura check`` names it."""
    files = walk_catalog(catalog_dir)
    found: list[tuple[str, Model]] = []
    for label, path in files.unwrap() if is_successful(files) else []:
        text = read_document(label, path)
        parsed = parse_document(label, text.unwrap()) if is_successful(text) else None
        if parsed is None or not is_successful(parsed):
            continue
        match parsed.unwrap().definition:
            case Model() as model if model.source == alias:
                found.append((label, model))
            case _:  # another source's model, or not a model
                continue
    return found


def _offer(
    catalog_dir: Path,
    drifts: list[ModelDrift],
    tables: Sequence[FoundTable],
    alias: str,
    modeline: str | None,
    dialect: Dialect,
) -> list[str]:
    """The fresh draft of each changed table, written beside its authored model as
    ``<file>.draft`` (not a ``.md`` the catalog reads); the author's file is never touched."""
    by_table = {table.table: table for table in tables}
    offered = []
    for drift in drifts:
        table = by_table.get(drift.table)
        if table is None:
            continue
        draft = draft_catalog(alias, [table], [], schema_modeline=modeline, dialect=dialect)
        model = next((d for d in draft.documents if d.path.startswith("models/")), None)
        if model is None:
            continue
        beside = f"{drift.file}.draft"
        (catalog_dir / beside).write_text(model.text, encoding="utf-8", newline="\n")
        offered.append(beside)
    return offered


async def found_tables(
    loaded: LoadedSettings, environ: Mapping[str, str], alias: str, request: InitRequest
) -> Result[Found, str]:
    """The tables ``request`` asks of the source ``alias`` (its columns, types and keys), asked
    as every command asks a source; ``sutura import dbt`` reads its relations' columns so."""
    settings = loaded.settings
    context = loaded.source_context(environ)
    opened = await open_source(alias, settings.sources[alias], context)
    if not is_successful(opened):
        return Failure(f"settings: {key_path('sources', alias)}: {opened.failure()}")
    source = opened.unwrap()
    try:

        async def ask(deadline_at: float) -> Found:
            return await introspect(source, request.schema, request.tables, deadline_at)

        found = await bounded(source, ask, deadline_seconds=settings.limits.deadline_seconds)
    finally:
        await source.close()
    if isinstance(found, Faulted):
        return Failure(
            f"init: the source {alias} could not be asked for its tables"
            f" ({found.fault.value}; run with --verbose for the cause)"
        )
    return Success(found)


def _write(catalog_dir: Path, draft: Draft) -> InitReport:
    written: list[str] = []
    kept: list[str] = []
    for document in draft.documents:
        path = catalog_dir / document.path
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8", newline="\n") as file:
                file.write(document.text)
        except FileExistsError:
            kept.append(document.path)
            continue
        written.append(document.path)
    metrics = [d.path for d in draft.documents if d.path.startswith("metrics/")]
    return InitReport(
        catalog_dir=catalog_dir,
        written=written,
        kept=kept,
        notes=list(draft.notes),
        draft_metrics=[m for m in metrics if m in written],
    )
