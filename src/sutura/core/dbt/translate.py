"""A dbt semantic manifest as catalog documents, and what could not be carried over.

Pure: the boundary parses ``target/semantic_manifest.json`` with ``dbt-semantic-interfaces``
and asks the source for each relation's columns; this package decides every document and
every refusal, and this module takes its steps in order, then holds what they wrote to the
catalog's own checks. The mapping, concept by concept, is ``docs/import-dbt.md``:

- a semantic model → a model (its relation's columns as the source reports them, its primary
  entity as the primary key); a foreign entity that is another semantic model's primary
  entity → a ``many_to_one`` relationship (:mod:`sutura.core.dbt.models`);
- a dimension → a shared dimension of its model (``dimensions:`` on the model document), which
  every metric reaching the model uses, named as MetricFlow names it from its own model (the
  primary entity and the dimension, joined by two underscores: customer__customer_type),
  its ``expr`` translated into the expression vocabulary (:mod:`sutura.core.dbt.dimensions`);
- a simple metric → a metric over its measure (filters → required filters); a ratio → a
  ratio measure on one model, or a derived ratio across two (:mod:`sutura.core.dbt.metrics`);
  a derived metric of two metrics and one of ``+ - * /`` → a derived metric
  (:mod:`sutura.core.dbt.derived`);
- descriptions and labels → the documents' prose, untrusted like any author text
  (:mod:`sutura.core.dbt.documents`).

What has no counterpart is never guessed: it is named with its source file and the reason.
"""

from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from dbt_semantic_interfaces.protocols.metric import Metric
from dbt_semantic_interfaces.protocols.semantic_manifest import SemanticManifest
from dbt_semantic_interfaces.type_enums.metric_type import MetricType
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import parse_document
from sutura.core.catalog.draft import DraftDocument, FoundTable
from sutura.core.catalog.error import CatalogError
from sutura.core.dbt.context import Context, Rewritten, Skipped
from sutura.core.dbt.dimensions import filter_dimensions
from sutura.core.dbt.documents import marked_file
from sutura.core.dbt.metrics import add_metric
from sutura.core.dbt.models import add_model, add_relationships
from sutura.core.definitions.model import TablePath
from sutura.core.text.escape import has_lone_surrogate

# Simple metrics first, then the ratios over them, then the derived metrics over both.
_STAGE: Final = {MetricType.RATIO: 1, MetricType.DERIVED: 2}
_NOT_UTF8: Final = (
    "its description holds a lone surrogate (\\ud800 to \\udfff), which no UTF-8 file can"
    " carry; write the character itself in the dbt project"
)


class Counts(NamedTuple):
    """How many of each concept the manifest has and how many were carried over."""

    semantic_models: tuple[int, int]
    measures: tuple[int, int]
    dimensions: tuple[int, int]
    metrics: tuple[int, int]
    semi_additive: tuple[int, int] = (0, 0)
    """Measures with a ``non_additive_dimension``, and those carried over as semi-additive."""


class Imported(NamedTuple):
    """The documents to write, what was not carried over, and the counts."""

    documents: tuple[DraftDocument, ...]
    skipped: tuple[Skipped, ...]
    counts: Counts
    rewritten: tuple[Rewritten, ...] = ()
    """Each derived metric carried over as its parts or with a scale, and what was made of it."""


def import_manifest(
    manifest: SemanticManifest,
    tables: Mapping[TablePath, FoundTable],
    source: str,
    files: Mapping[str, str],
) -> Result[Imported, str]:
    """The catalog documents for ``manifest`` over the source ``source``, whose tables are
    ``tables``; ``files`` names each element's file (``metric.<name>``,
    ``semantic_model.<name>``) for the report."""
    if not manifest.semantic_models:
        return Failure("the semantic manifest has no semantic model; nothing to import")
    context = Context(source, files)
    context.metric_names = frozenset(metric.name for metric in manifest.metrics)
    for semantic in manifest.semantic_models:
        add_model(context, semantic, tables)
    for model in context.models.values():
        add_relationships(context, model)
    _settle_dimensions(context)
    for model in context.models.values():
        context.dims[model.name] = filter_dimensions(context, model.name)
    metrics = {metric.name: metric for metric in manifest.metrics}
    for metric in _in_order(metrics):
        add_metric(context, metric)
    measures_total = sum(len(s.measures) for s in manifest.semantic_models)
    for model_, measure in context.measures.values():
        if measure.name not in context.used_measures:
            context.skip(
                model_.file,
                f"measure {measure.name}",
                "no metric carried over uses it (a sutura metric is a measure asked by name)",
            )
    _settle(context)
    dims_total = sum(len(s.dimensions) for s in manifest.semantic_models)
    non_additive = [
        m.name
        for s in manifest.semantic_models
        for m in s.measures
        if m.non_additive_dimension is not None
    ]
    counts = Counts(
        semantic_models=(len(manifest.semantic_models), len(context.models)),
        measures=(measures_total, len(context.used_measures)),
        dimensions=(dims_total, len(context.carried_dims)),
        metrics=(len(metrics), len([name for name in context.carried if name in metrics])),
        semi_additive=(
            len(non_additive),
            len([m for m in non_additive if m in context.used_measures]),
        ),
    )
    return Success(
        Imported(
            documents=tuple(context.documents),
            skipped=tuple(context.skipped),
            counts=counts,
            rewritten=tuple(r for r in context.rewritten if r.metric in context.carried),
        )
    )


def _in_order(metrics: Mapping[str, Metric]) -> list[Metric]:
    """Simple metrics first, then the ratios over them, then the derived metrics, each after
    the derived metrics it reads (by name where they are as deep)."""
    depths: dict[str, int] = {}

    def depth(name: str, seen: frozenset[str]) -> int:
        metric = metrics.get(name)
        if metric is None or metric.type != MetricType.DERIVED or name in seen:
            return 0  # dbt refuses a cycle; a name met twice on one path ends the walk
        if name not in depths:
            inputs = metric.type_params.metrics or []
            depths[name] = 1 + max((depth(i.name, seen | {name}) for i in inputs), default=0)
        return depths[name]

    return sorted(
        metrics.values(), key=lambda m: (_STAGE.get(m.type, 0), depth(m.name, frozenset()), m.name)
    )


def _settle_dimensions(context: Context) -> None:
    """Hold the models' shared dimensions to the catalog's checks before any metric uses them:
    a dimension they refuse is taken off its model (named with the check's sentence), never
    the model with it. Each round takes at least one off."""
    for _ in range(len(context.carried_dims) + 1):
        parsed = [parse_document(d.path, d.text) for d in context.documents]
        if not all(is_successful(p) for p in parsed):
            return  # a document that does not parse is _settle's to name
        checked = check_catalog([p.unwrap() for p in parsed])
        refused: dict[str, dict[int, str]] = {}
        for error in [] if is_successful(checked) else checked.failure():
            index = _dimension_index(error.key)
            if error.file.startswith("models/") and index is not None:
                refused.setdefault(error.file, {}).setdefault(index, error.sentence())
        if not refused:
            return
        for path, dimensions in refused.items():
            _drop_dimensions(context, path, dimensions)


def _dimension_index(key: str) -> int | None:
    """``i`` of a key ``dimensions[i]…``, or None."""
    if not key.startswith("dimensions["):
        return None
    index = key.removeprefix("dimensions[").split("]", 1)[0]
    return int(index) if index.isdigit() else None


def _drop_dimensions(context: Context, path: str, refused: Mapping[int, str]) -> None:
    name = path.removeprefix("models/").removesuffix(".md")
    document = next(d for d in context.documents if d.path == path)
    lines = document.text.split("\n")
    start = lines.index("dimensions:") + 1
    declared = context.shared[name]
    for index in sorted(refused, reverse=True):
        full = declared.pop(index)
        del lines[start + index]
        model = context.models[name]
        local = full.removeprefix(f"{model.entity}__")
        context.carried_dims.discard((name, local))
        context.skip(model.file, f"dimension {local}", f"sutura check refuses it: {refused[index]}")
    if not declared:
        del lines[start - 1]
    at = context.documents.index(document)
    context.documents[at] = DraftDocument(path=path, text="\n".join(lines))


def _settle(context: Context) -> None:
    """Hold the documents to the catalog's own checks (parsing, then the checks across
    documents, types included): a document they refuse is not written, and is named with the
    check's sentence; what reads it is then refused in turn. Each round settles or takes at
    least one document out, so there are at most as many rounds as documents."""
    for _ in range(len(context.documents) + 1):
        parsed = [(d, parse_document(d.path, d.text)) for d in context.documents]
        problems: dict[str, str] = {
            d.path: _NOT_UTF8 for d in context.documents if has_lone_surrogate(d.text)
        } | {
            d.path: result.failure().sentence() for d, result in parsed if not is_successful(result)
        }
        if not problems:
            checked = check_catalog([result.unwrap() for _, result in parsed])
            problems = {} if is_successful(checked) else _by_file(checked.failure())
        if not problems:
            return
        for document in [d for d in context.documents if d.path in problems]:
            context.documents.remove(document)
            name = document.path.rsplit("/", 1)[-1].removesuffix(".md")
            kind = document.path.split("/", 1)[0].removesuffix("s")
            if kind == "metric":
                context.carried.pop(name, None)
            context.skip(_file_of(document), f"{kind} {name}", problems[document.path])


def _by_file(errors: Iterable[CatalogError]) -> dict[str, str]:
    found: dict[str, str] = {}
    for error in errors:
        found.setdefault(error.file, f"sutura check refuses it: {error.sentence()}")
    return found


def _file_of(document: DraftDocument) -> str:
    first = document.text.split("\n", 2)[1]
    return marked_file(first).value_or(first)
