"""A dbt semantic manifest as catalog documents, and what could not be carried over.

Pure: the boundary parses ``target/semantic_manifest.json`` with ``dbt-semantic-interfaces``
and asks the source for each relation's columns; this module decides every document and
every refusal. The mapping, concept by concept, is ``docs/import-dbt.md``:

- a semantic model → a model (its relation's columns as the source reports them, its primary
  entity as the primary key);
- a foreign entity that is another semantic model's primary entity → a ``many_to_one``
  relationship;
- a dimension → a shared dimension of its model (``dimensions:`` on the model document), which
  every metric reaching the model uses, named as MetricFlow names it from its own model (the
  primary entity and the dimension, joined by two underscores: customer__customer_type),
  its ``expr`` translated into the expression vocabulary;
- a simple metric → a metric over its measure (filters → required filters); a ratio → a
  ratio measure on one model, or a derived ratio across two; a derived metric of two
  metrics and one of ``+ - * /`` → a derived metric;
- descriptions and labels → the documents' prose (untrusted, like any author text).

What has no counterpart is never guessed: it is named with its source file and the reason.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Final, NamedTuple, assert_never

from dbt_semantic_interfaces.protocols.dimension import Dimension
from dbt_semantic_interfaces.protocols.measure import Measure
from dbt_semantic_interfaces.protocols.metric import Metric, MetricInput
from dbt_semantic_interfaces.protocols.semantic_manifest import SemanticManifest
from dbt_semantic_interfaces.protocols.semantic_model import SemanticModel
from dbt_semantic_interfaces.protocols.where_filter import WhereFilterIntersection
from dbt_semantic_interfaces.type_enums.aggregation_type import AggregationType
from dbt_semantic_interfaces.type_enums.dimension_type import DimensionType
from dbt_semantic_interfaces.type_enums.entity_type import EntityType
from dbt_semantic_interfaces.type_enums.metric_type import MetricType
from dbt_semantic_interfaces.type_enums.time_granularity import TimeGranularity
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success
from sqlglot import exp

from sutura.core.catalog.checks.catalog import check_catalog
from sutura.core.catalog.document.parse import parse_document
from sutura.core.catalog.draft import DraftDocument, FoundTable, model_name, scalar
from sutura.core.catalog.error import CatalogError, has_unsafe_characters, quoted
from sutura.core.dbt.filters import where
from sutura.core.dbt.sql_expr import SqlColumn, expression, parse
from sutura.core.dbt.tree import Tree, flow, with_via
from sutura.core.definitions.model import TablePath, table_label
from sutura.core.expression.types import declared_type
from sutura.core.nouns.grain import GRAIN_ORDER

MARK: Final = "# imported by sutura import dbt from {file}; a re-import never overwrites your edits"
_MAX_HOPS: Final = 2
_MAX_NAME: Final = 64
_PATHS_KEPT: Final = 2
_GRAINS: Final = [g.value for g in GRAIN_ORDER]
_AGGREGATES: Final = {
    AggregationType.SUM: "sum",
    AggregationType.MIN: "min",
    AggregationType.MAX: "max",
    AggregationType.COUNT_DISTINCT: "count_distinct",
    AggregationType.COUNT: "count",
    AggregationType.AVERAGE: "avg",
    AggregationType.MEDIAN: "median",
}
_DERIVED_OPS: Final[dict[type[exp.Expr], str]] = {
    exp.Add: "sum",
    exp.Sub: "difference",
    exp.Mul: "product",
    exp.Div: "ratio",
}
# Simple metrics first, then the ratios over them, then the derived metrics over both.
_STAGE: Final = {MetricType.RATIO: 1, MetricType.DERIVED: 2}
_TREE_TYPES: Final = {"date_of": "date", "month": "date", "quarter": "date"}


class Skipped(NamedTuple):
    """One thing not carried over (or carried over without one of its properties)."""

    file: str
    item: str
    reason: str

    def line(self) -> str:
        """``file: item: reason``, as the command prints it."""
        return f"{self.file}: {self.item}: {self.reason}"


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


class _Model(NamedTuple):
    name: str
    file: str
    semantic: SemanticModel
    columns: dict[str, str]
    key: str | None
    entity: str | None


class _Dim(NamedTuple):
    """A dimension a filter on one model can read: its MetricFlow name and its tree."""

    name: str
    tree: Tree


class _Term(NamedTuple):
    """A simple metric's measure on its model: the term, its filters, its time column."""

    model: str
    term: dict[str, Tree]
    filters: list[Tree]
    time_column: str
    grains: list[str]
    semi: dict[str, Tree] | None = None


class _Carried(NamedTuple):
    grains: list[str]
    dimensions: list[str]
    model: str | None


class _Context:
    """What every step reads and adds to: models, relationships, what was skipped."""

    def __init__(self, source: str, files: Mapping[str, str]) -> None:
        self.source = source
        self.files = files
        self.models: dict[str, _Model] = {}
        self.by_semantic: dict[str, str] = {}
        self.primary: dict[str, str] = {}  # entity name -> model name
        self.joins: dict[str, list[tuple[str, str, str]]] = {}  # model -> (entity, rel, target)
        self.skipped: list[Skipped] = []
        self.documents: list[DraftDocument] = []
        self.taken_models: set[str] = set()
        self.taken_relationships: set[str] = set()
        self.dims: dict[str, list[_Dim]] = {}
        self.shared: dict[str, list[str]] = {}  # model -> the shared dimensions it declares
        self.metric_names: frozenset[str] = frozenset()
        self.carried_dims: set[tuple[str, str]] = set()
        self.refused_dims: set[tuple[str, str]] = set()
        self.measures: dict[str, tuple[_Model, Measure]] = {}
        self.terms: dict[str, _Term] = {}
        self.carried: dict[str, _Carried] = {}
        self.used_measures: set[str] = set()

    def file_of(self, kind: str, name: str) -> str:
        return self.files.get(f"{kind}.{name}", "target/semantic_manifest.json")

    def skip(self, file: str, item: str, reason: str) -> None:
        self.skipped.append(Skipped(file=file, item=item, reason=reason))


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
    context = _Context(source, files)
    context.metric_names = frozenset(metric.name for metric in manifest.metrics)
    for semantic in manifest.semantic_models:
        _add_model(context, semantic, tables)
    for model in context.models.values():
        _add_relationships(context, model)
    _settle_dimensions(context)
    for model in context.models.values():
        context.dims[model.name] = _dimensions(context, model.name)
    metrics = {metric.name: metric for metric in manifest.metrics}
    order = sorted(metrics.values(), key=lambda m: (_STAGE.get(m.type, 0), m.name))
    for metric in order:
        _add_metric(context, metric, metrics)
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
        metrics=(len(metrics), len(context.carried)),
        semi_additive=(
            len(non_additive),
            len([m for m in non_additive if m in context.used_measures]),
        ),
    )
    return Success(
        Imported(documents=tuple(context.documents), skipped=tuple(context.skipped), counts=counts)
    )


def _settle_dimensions(context: _Context) -> None:
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


def _drop_dimensions(context: _Context, path: str, refused: Mapping[int, str]) -> None:
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


def _settle(context: _Context) -> None:
    """Hold the documents to the catalog's own checks (parsing, then the checks across
    documents, types included): a document they refuse is not written, and is named with the
    check's sentence; what reads it is then refused in turn. Each round settles or takes at
    least one document out, so there are at most as many rounds as documents."""
    for _ in range(len(context.documents) + 1):
        parsed = [(d, parse_document(d.path, d.text)) for d in context.documents]
        problems: dict[str, str] = {
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
    return first.removeprefix("# imported by sutura import dbt from ").split(";")[0]


# --- models and relationships --------------------------------------------------------------


def _bare_column(text: str | None, fallback: str, columns: Mapping[str, str]) -> str | None:
    """The column an ``expr`` names when it is only a column (or absent: the element's name)."""
    if text is None:
        return fallback if fallback in columns else None
    parsed = parse(text)
    if not is_successful(parsed):
        return None
    node = parsed.unwrap()
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, SqlColumn) and not node.table and node.name in columns:
        return node.name
    return None


def _add_model(
    context: _Context, semantic: SemanticModel, tables: Mapping[TablePath, FoundTable]
) -> None:
    file = context.file_of("semantic_model", semantic.name)
    relation = semantic.node_relation
    candidates: list[TablePath] = [(relation.schema_name, relation.alias), (relation.alias,)]
    found = next((tables[c] for c in candidates if c in tables), None)
    if found is None:
        context.skip(
            file,
            f"semantic model {semantic.name}",
            f"the source has no table {quoted(relation.relation_name)} (run dbt build first);"
            " its measures and dimensions go with it",
        )
        return
    columns = {c: t for c, t in found.columns if c and not has_unsafe_characters(c)}
    primaries = [e for e in semantic.entities if e.type == EntityType.PRIMARY]
    for entity in semantic.entities:
        if entity.type in {EntityType.UNIQUE, EntityType.NATURAL}:
            context.skip(
                file,
                f"entity {entity.name}",
                f"a {entity.type.value} entity has no counterpart: a relationship joins a"
                " foreign key onto a primary one",
            )
    key = entity_name = None
    if primaries:
        primary = primaries[0]
        key = _bare_column(primary.expr, primary.name, columns)
        entity_name = primary.name
        if key is None:
            context.skip(
                file,
                f"entity {primary.name}",
                "its expr is not one column of the table, so the model declares no primary key",
            )
    name = model_name(semantic.name, context.taken_models)
    model = _Model(name, file, semantic, columns, key, entity_name)
    context.models[name] = model
    context.by_semantic[semantic.name] = name
    if key is not None and entity_name is not None:
        context.primary.setdefault(entity_name, name)
    for measure in semantic.measures:
        context.measures[measure.name] = (model, measure)
    lines = [
        MARK.format(file=file),
        "kind: model",
        f"name: {scalar(name)}",
        f"source: {scalar(context.source)}",
        f"table: {_table_yaml(found.table)}",
        *([f"primary_key: {scalar(key)}"] if key is not None else []),
        "columns:",
    ]
    for column, spelled in columns.items():
        lines += [f"  - name: {scalar(column)}", f"    type: {scalar(spelled)}"]
    lines += _shared_dimensions(context, model)
    body = _prose(semantic.description, semantic.label) or (
        f"The dbt semantic model {semantic.name}, one row per row of"
        f" {quoted(table_label(found.table))}."
    )
    _document(context, f"models/{name}.md", lines, body)


def _table_yaml(path: TablePath) -> str:
    if len(path) == 1:
        return scalar(path[0])
    return "[" + ", ".join(scalar(part) for part in path) + "]"


def _add_relationships(context: _Context, model: _Model) -> None:
    joins: list[tuple[str, str, str]] = []
    for entity in model.semantic.entities:
        if entity.type != EntityType.FOREIGN:
            continue
        target_name = context.primary.get(entity.name)
        if target_name is None or target_name == model.name:
            if target_name is None:
                context.skip(
                    model.file,
                    f"entity {entity.name}",
                    "no semantic model has it as its primary entity, so it joins nothing",
                )
            continue
        target = context.models[target_name]
        column = _bare_column(entity.expr, entity.name, model.columns)
        if column is None or target.key is None:
            context.skip(
                model.file,
                f"entity {entity.name}",
                "its expr is not one column of the table; a relationship joins columns",
            )
            continue
        name = model_name(f"{model.name}_{entity.name}", context.taken_relationships)
        lines = [
            MARK.format(file=model.file),
            "kind: relationship",
            f"name: {scalar(name)}",
            f"origin_model: {scalar(model.name)}",
            f"target_model: {scalar(target.name)}",
            "keys:",
            "  - equal:",
            f"      origin: {scalar(column)}",
            f"      target: {scalar(target.key)}",
            "join_type: many_to_one",
        ]
        body = (
            f"The entity {entity.name}: each row of {model.name} has at most one"
            f" {target.name} (MetricFlow joins a foreign entity onto its primary one)."
        )
        _document(context, f"relationships/{name}.md", lines, body)
        joins.append((entity.name, name, target.name))
    context.joins[model.name] = joins


# --- dimensions ----------------------------------------------------------------------------


def _column_resolver(model: _Model) -> Callable[[str], Result[Tree, str]]:
    def resolve(name: str) -> Result[Tree, str]:
        if name in model.columns:
            return Success({"column": name})
        return Failure(
            f"reads {quoted(name)}, which the table of {model.name} has no column called"
        )

    return resolve


def _dimension_tree(model: _Model, dimension: Dimension) -> Result[Tree, str]:
    return expression(dimension.expr or dimension.name, _column_resolver(model))


def _at_its_grain(dimension: Dimension, tree: Tree) -> Result[Tree, str]:
    """A time dimension as MetricFlow groups by it: its value at its own grain (a day, a
    month, a quarter); the grain of a value that is already a day, month or quarter stands."""
    if dimension.type != DimensionType.TIME:
        return Success(tree)
    if isinstance(tree, dict) and set(tree) & set(_TREE_TYPES):
        return Success(tree)
    params = dimension.type_params
    grain = params.time_granularity.value if params is not None else "day"
    part = {"day": "date_of", "month": "month", "quarter": "quarter"}.get(grain)
    if part is None:
        return Failure(f"a time dimension at the grain {grain} has no counterpart")
    return Success({part: tree})


def _tree_type(tree: Tree, model: _Model) -> str | None:
    """The declared type of what ``tree`` computes, where it is plain to tell."""
    if not isinstance(tree, dict) or len(tree) != 1:
        return None
    ((kind, inner),) = tree.items()
    if kind in _TREE_TYPES:
        return _TREE_TYPES[kind]
    if kind == "column" and isinstance(inner, str):
        declared = declared_type(model.columns.get(inner, ""))
        return None if declared is None else declared.family.value
    if kind in {"coalesce", "case"} and isinstance(inner, list) and inner:
        first = inner[0]
        if kind == "case" and isinstance(first, dict):
            first = first.get("then", "")
        return _tree_type(first, model)
    return None


def _local_dims(context: _Context, model: _Model) -> list[tuple[str, Tree, str | None, bool]]:
    """Each dimension of ``model`` as (name, tree, declared type, bare column), once."""
    found = []
    for dimension in model.semantic.dimensions:
        tree = _dimension_tree(model, dimension).bind(partial(_at_its_grain, dimension))
        if not is_successful(tree):
            key = (model.name, dimension.name)
            if key not in context.refused_dims:
                context.refused_dims.add(key)
                context.skip(model.file, f"dimension {dimension.name}", tree.failure())
            continue
        value = tree.unwrap()
        bare = isinstance(value, dict) and set(value) == {"column"}
        found.append((dimension.name, value, _tree_type(value, model), bare))
    return found


def _spec(name: str, tree: Tree, kind: str | None, bare: bool) -> dict[str, Tree] | None:
    """How a model declares the dimension ``name``: a column, or an expression with its
    type; None when its type is not plain to tell."""
    if bare and isinstance(tree, dict):
        return {"name": name, "column": tree["column"]}
    if kind is None:
        return None
    return {"name": name, "expression": tree, "type": kind}


def _shared_dimensions(context: _Context, model: _Model) -> list[str]:
    """The ``dimensions:`` lines of a model document: each dimension of its semantic model,
    shared with every metric that reaches the model, named as MetricFlow names it from the
    model's own metrics (its primary entity, two underscores, the dimension)."""
    declared: list[str] = []
    lines: list[str] = []
    local = _local_dims(context, model)
    if local and model.entity is None:
        for name, *_ in local:
            context.skip(
                model.file,
                f"dimension {name}",
                "its semantic model has no primary entity, which MetricFlow names a dimension by",
            )
        local = []
    for name, tree, kind, bare in local:
        full = f"{model.entity}__{name}"
        spec = _spec(full, tree, kind, bare)
        reason = (
            "its expr's type is not plain to tell (a shared dimension that computes a value"
            " declares its type)"
            if spec is None
            else "its name is longer than 64 characters"
            if len(full) > _MAX_NAME
            else f"its name {quoted(full)} is a metric's or the period's"
            if full in context.metric_names or full == "period"
            else None
        )
        if reason is not None or spec is None:
            context.skip(model.file, f"dimension {name}", reason or "")
            continue
        declared.append(full)
        lines.append(f"  - {flow(spec)}")
        context.carried_dims.add((model.name, name))
    context.shared[model.name] = declared
    return ["dimensions:", *lines] if lines else []


def _dimensions(context: _Context, start: str) -> list[_Dim]:
    """Every dimension a filter of a metric on ``start`` may read, named as MetricFlow names
    it (the entities walked and the dimension), with the tree that reads it from ``start``."""
    dims: list[_Dim] = []
    seen: set[str] = set()

    def walk(current: str, prefix: str, via: tuple[str, ...], visited: set[str]) -> None:
        model = context.models[current]
        for name, tree, _, _ in _local_dims(context, model):
            full = f"{prefix}__{name}"
            if full not in seen:
                seen.add(full)
                dims.append(_Dim(full, with_via(tree, via)))
        if len(via) >= _MAX_HOPS:
            return
        for entity, relationship, target in context.joins.get(current, []):
            if target not in visited:
                step = f"{prefix}__{entity}" if via else entity
                walk(target, step, (*via, relationship), visited | {target})

    entity = context.models[start].entity
    if entity is not None:
        walk(start, entity, (), {start})
    return dims


def _reach(context: _Context, start: str) -> dict[str, list[tuple[str, ...]]]:
    """The models a metric on ``start`` reaches along relationships, nearest first, each with
    its paths (two kept: a second says there are several), as the catalog walks them."""
    outgoing: dict[str, list[tuple[str, str]]] = {}
    for origin, joins in context.joins.items():
        for _, relationship, target in joins:
            outgoing.setdefault(origin, []).append((relationship, target))
    for joins_of in outgoing.values():
        joins_of.sort()
    paths: dict[str, list[tuple[str, ...]]] = {start: [()]}
    frontier: list[tuple[str, tuple[str, ...], frozenset[str]]] = [(start, (), frozenset({start}))]
    while frontier:
        following = []
        for current, path, visited in frontier:
            for relationship, target in outgoing.get(current, []):
                known = paths.setdefault(target, [])
                if target in visited or len(known) >= _PATHS_KEPT:
                    continue
                known.append((*path, relationship))
                following.append((target, (*path, relationship), visited | {target}))
        frontier = following
    return {model: found for model, found in paths.items() if found}


def emit_dimensions(
    context: _Context, model: str
) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """A metric's ``dimensions:`` lines, the shared dimensions it may then be asked by, and
    each one it reaches but cannot use (with the reason). Every shared dimension of every
    model it reaches is its own when the key is absent; where one is declared by two models
    or reached along two paths the catalog refuses it by name, so the metric then lists the
    others by name and the report names the rest."""
    offered: dict[str, list[tuple[str, list[tuple[str, ...]]]]] = {}
    for reached, paths in _reach(context, model).items():
        for name in context.shared.get(reached, []):
            offered.setdefault(name, []).append((reached, paths))
    usable: list[str] = []
    refused: list[tuple[str, str]] = []
    for name, offers in offered.items():
        if len(offers) > 1:
            models = " and ".join(quoted(m) for m, _ in offers)
            refused.append((name, f"the models {models} both declare it"))
        elif len(offers[0][1]) > 1:
            refused.append((name, f"the model {quoted(offers[0][0])} is reached along two paths"))
        else:
            usable.append(name)
    if not refused:
        return [], usable, []
    lines = [f"  - {scalar(name)}" for name in usable]
    return ["dimensions:", *lines] if lines else ["dimensions: []"], usable, refused


_RULES: Final = {"max": "last", "min": "first"}


def non_additive(model: _Model, measure: Measure) -> Result[dict[str, Tree] | None, str]:
    """A measure's ``non_additive_dimension`` as a metric's ``semi_additive`` key, where the
    two mean the same rows; None for a measure that adds up.

    MetricFlow keeps, in each period asked and each group of ``window_groupings``, the rows at
    the greatest (``max``) or least (``min``) value of the dimension truncated to its own
    grain, every row at it, then aggregates them. sutura's ``last`` (``first``) keeps, per
    period and per value of the entity's columns, the rows at the greatest (least) value of the
    metric's time column, every row at it, and adds them up. They are one rule when the
    dimension is the measure's ``agg_time_dimension`` read as a DATE column at the grain of a
    day (so truncating changes no value), the groupings are entities of the model's own
    columns (at least one), and the aggregate adds up across them (sum, count, sum_boolean).
    """
    spec = measure.non_additive_dimension
    if spec is None:
        return Success(None)
    said = f"its non_additive_dimension ({spec.name}, {spec.window_choice.value})"
    rule = _RULES.get(spec.window_choice.value)
    if rule is None:
        return Failure(f"{said}: a window_choice is min or max")
    semantic = model.semantic
    agg_time = measure.agg_time_dimension or (
        semantic.defaults.agg_time_dimension if semantic.defaults else None
    )
    if spec.name != agg_time:
        return Failure(
            f"{said} is not its agg_time_dimension; sutura's semi-additive rule takes the"
            " last or first instant of the metric's own time column"
        )
    dimension = next((d for d in semantic.dimensions if d.name == spec.name), None)
    params = dimension.type_params if dimension is not None else None
    column = (
        None if dimension is None else _bare_column(dimension.expr, dimension.name, model.columns)
    )
    declared = None if column is None else declared_type(model.columns[column])
    grain = params.time_granularity if params is not None else TimeGranularity.DAY
    if declared is None or declared.family.value != "date" or grain != TimeGranularity.DAY:
        return Failure(
            f"{said} is not a DATE column at the grain of a day: MetricFlow keeps the rows of"
            " the last (first) day, sutura those of the last (first) instant of the column,"
            " which differ where a column holds times"
        )
    if not spec.window_groupings:
        return Failure(
            f"{said} has no window_groupings: MetricFlow keeps the rows at the period's last"
            " (first) day across all rows, sutura each entity's own last (first) rows"
        )
    entities = {e.name: e for e in semantic.entities}
    columns: list[str] = []
    for grouping in spec.window_groupings:
        entity = entities.get(grouping)
        found = None if entity is None else _bare_column(entity.expr, entity.name, model.columns)
        if found is None:
            return Failure(
                f"{said} groups by {quoted(grouping)}, which is not an entity of one"
                f" column of {model.name}"
            )
        columns.append(found)
    if measure.agg not in {AggregationType.SUM, AggregationType.COUNT, AggregationType.SUM_BOOLEAN}:
        return Failure(
            f"{said} takes each group's rows and aggregates them with {measure.agg.value};"
            " sutura adds the rows it takes up across entities (a sum or a count)"
        )
    return Success({"rule": rule, "entity": list(columns)})


# --- metrics -------------------------------------------------------------------------------


def _time_column(model: _Model, name: str) -> Result[tuple[str, list[str]], str]:
    """The time column a measure is counted by, and the grains it allows."""
    dimension = next((d for d in model.semantic.dimensions if d.name == name), None)
    if dimension is None or dimension.type != DimensionType.TIME:
        return Failure(f"its agg_time_dimension {quoted(name)} is not a time dimension")
    tree = _dimension_tree(model, dimension)
    if not is_successful(tree):
        return Failure(f"its agg_time_dimension {quoted(name)}: {tree.failure()}")
    value = tree.unwrap()
    inner = value.get("date_of") if isinstance(value, dict) else None
    column = value if inner is None else inner
    if not (isinstance(column, dict) and set(column) == {"column"}):
        return Failure(
            f"its agg_time_dimension {quoted(name)} computes a value; a metric is counted by a"
            " date or timestamp column (or its date: a day's period is that of its date)"
        )
    params = dimension.type_params
    grain = params.time_granularity if params is not None else TimeGranularity.DAY
    allowed = [g for g in _GRAINS if _grain_rank(g) >= _grain_rank(grain.value)]
    if not allowed:
        return Failure(f"its time granularity {grain.value} is finer than a day")
    found = column["column"]
    assert isinstance(found, str)
    return Success((found, allowed))


def _grain_rank(name: str) -> int:
    ranks = ["day", "week", "month", "quarter", "year"]
    return ranks.index(name) if name in ranks else -1


def _filters(
    context: _Context,
    model: _Model,
    filters: Iterable[WhereFilterIntersection | None],
    time_column: str | None = None,
) -> Result[list[Tree], str]:
    index = {d.name: d.tree for d in context.dims.get(model.name, [])}

    def resolve(name: str) -> Result[Tree, str]:
        if name in index:
            return Success(index[name])
        if name == "metric_time" and time_column is not None:
            return Success({"date_of": {"column": time_column}})
        if name == model.entity and model.key is not None:
            return Success({"column": model.key})
        return Failure(f"reads {quoted(name)}, which {model.name}'s metrics cannot reach")

    trees: list[Tree] = []
    for intersection in filters:
        for clause in intersection.where_filters if intersection is not None else []:
            tree = where(clause.where_sql_template, resolve)
            if not is_successful(tree):
                return Failure(tree.failure())
            trees.append(tree.unwrap())
    return Success(trees)


def _measure_term(
    context: _Context, name: str
) -> Result[tuple[_Model, dict[str, Tree], dict[str, Tree] | None], str]:
    if name not in context.measures:
        return Failure(f"its measure {quoted(name)} is on a semantic model not carried over")
    model, measure = context.measures[name]
    semi = non_additive(model, measure)
    if not is_successful(semi):
        return Failure(f"its measure {name}: {semi.failure()}")
    taken = semi.unwrap()
    value = expression(measure.expr or measure.name, _column_resolver(model))
    if not is_successful(value):
        return Failure(f"its measure {name}: {value.failure()}")
    of = value.unwrap()
    match measure.agg:
        case AggregationType.SUM_BOOLEAN:
            return Success((model, {"aggregate": "count", "where": {"is_true": of}}, taken))
        case AggregationType.PERCENTILE:
            params = measure.agg_params
            if params is None or params.percentile is None:
                return Failure(f"its measure {name} is a percentile without its percentile")
            if params.use_approximate_percentile:
                return Failure(
                    f"its measure {name} is an approximate percentile; sutura computes exact"
                    " ones, and an approximation's value is the engine's own"
                )
            if params.use_discrete_percentile:
                return Failure(
                    f"its measure {name} is a discrete percentile; sutura's interpolates"
                )
            fraction = format(params.percentile, "f").rstrip("0").rstrip(".")
            return Success(
                (
                    model,
                    {"aggregate": "percentile", "of": of, "fraction": fraction or "0"},
                    taken,
                )
            )
        case (
            AggregationType.SUM
            | AggregationType.MIN
            | AggregationType.MAX
            | AggregationType.COUNT_DISTINCT
            | AggregationType.COUNT
            | AggregationType.AVERAGE
            | AggregationType.MEDIAN
        ):
            return Success((model, {"aggregate": _AGGREGATES[measure.agg], "of": of}, taken))
        case _:
            assert_never(measure.agg)


def _with_where(term: dict[str, Tree], filters: Sequence[Tree]) -> dict[str, Tree]:
    present = term.get("where")
    every = [*([present] if present is not None else []), *filters]
    if not every:
        return term
    return {**term, "where": every[0] if len(every) == 1 else {"and": list(every)}}


def _simple(context: _Context, metric: Metric) -> Result[_Term, str]:
    params = metric.type_params
    measure_input = params.measure
    if measure_input is None:
        return Failure("a simple metric without a measure")
    if measure_input.join_to_timespine:
        return Failure(
            "join_to_timespine fills every period of the time spine; sutura asks that per"
            " question (--fill over a range)"
        )
    found = _measure_term(context, measure_input.name)
    if not is_successful(found):
        return Failure(found.failure())
    model, term, semi = found.unwrap()
    _, measure = context.measures[measure_input.name]
    agg_time = measure.agg_time_dimension or (
        model.semantic.defaults.agg_time_dimension if model.semantic.defaults else None
    )
    if agg_time is None:
        return Failure(f"its measure {measure.name} has no agg_time_dimension")
    timed = _time_column(model, agg_time)
    if not is_successful(timed):
        return Failure(timed.failure())
    column, grains = timed.unwrap()
    filters = _filters(context, model, [metric.filter, measure_input.filter], column)
    if not is_successful(filters):
        return Failure(filters.failure())
    context.used_measures.add(measure.name)
    return Success(_Term(model.name, term, filters.unwrap(), column, grains, semi))


def _input_term(context: _Context, given: MetricInput) -> Result[_Term, str]:
    if given.offset_window is not None or given.offset_to_grain is not None:
        return Failure(
            f"its input {given.name} is offset in time; sutura asks an earlier period per"
            " question (--compare previous_period or previous_year)"
        )
    term = context.terms.get(given.name)
    if term is None:
        return Failure(f"its input {given.name} is not a simple metric carried over")
    model = context.models[term.model]
    extra = _filters(context, model, [given.filter], term.time_column)
    if not is_successful(extra):
        return Failure(extra.failure())
    return Success(term._replace(filters=[*term.filters, *extra.unwrap()]))


def _add_metric(context: _Context, metric: Metric, metrics: Mapping[str, Metric]) -> None:
    file = context.file_of("metric", metric.name)
    item = f"metric {metric.name}"
    match metric.type:
        case MetricType.SIMPLE:
            simple = _simple(context, metric)
            if not is_successful(simple):
                context.skip(file, item, simple.failure())
                return
            term = simple.unwrap()
            context.terms[metric.name] = term
            measure = {"simple": _with_where(term.term, ())}
            fill = metric.type_params.measure
            if fill is not None and fill.fill_nulls_with is not None:
                context.skip(
                    file,
                    f"{item}: fill_nulls_with {fill.fill_nulls_with}",
                    "not carried over: a group without rows is left out of a sutura answer"
                    " (NULL beside another metric); --fill asks for zero-filled periods",
                )
            _write_metric(context, metric, file, term, measure, term.filters)
        case MetricType.RATIO:
            _ratio(context, metric, file, item)
        case MetricType.DERIVED:
            _derived(context, metric, file, item, metrics)
        case MetricType.CUMULATIVE:
            context.skip(
                file,
                item,
                "a cumulative metric: sutura asks a running or trailing total per question"
                " (--running, --trailing N) of the simple metric",
            )
        case MetricType.CONVERSION:
            context.skip(
                file, item, "a conversion metric (a funnel between two events) has no counterpart"
            )
        case _:
            assert_never(metric.type)


def _ratio(context: _Context, metric: Metric, file: str, item: str) -> None:
    params = metric.type_params
    if params.numerator is None or params.denominator is None:
        context.skip(file, item, "a ratio without a numerator or a denominator")
        return
    terms = [_input_term(context, params.numerator), _input_term(context, params.denominator)]
    for term in terms:
        if not is_successful(term):
            context.skip(file, item, term.failure())
            return
    numerator, denominator = (t.unwrap() for t in terms)
    one_model = (numerator.model, numerator.time_column) == (
        denominator.model,
        denominator.time_column,
    )
    # A semi-additive measure is one term of its own metric: its ratio is a derived one.
    if one_model and numerator.semi is None and denominator.semi is None:
        measure: dict[str, Tree] = {
            "ratio": {
                "numerator": _with_where(numerator.term, numerator.filters),
                "denominator": _with_where(denominator.term, denominator.filters),
                "zero_denominator": "yields_null",
            }
        }
        grains = [g for g in numerator.grains if g in denominator.grains]
        _write_metric(context, metric, file, numerator._replace(grains=grains), measure, [])
        return
    if (
        numerator.filters != context.terms[params.numerator.name].filters
        or denominator.filters != context.terms[params.denominator.name].filters
    ):
        context.skip(
            file,
            item,
            "its inputs on two models carry filters of their own; a derived metric"
            " combines two metrics as they are",
        )
        return
    _write_derived(
        context, metric, file, item, "ratio", params.numerator.name, params.denominator.name
    )


def _derived(
    context: _Context, metric: Metric, file: str, item: str, metrics: Mapping[str, Metric]
) -> None:
    params = metric.type_params
    inputs = {(given.alias or given.name): given for given in params.metrics or []}
    for given in inputs.values():
        if given.offset_window is not None or given.offset_to_grain is not None:
            context.skip(
                file,
                item,
                f"its input {given.name} is offset in time; sutura asks an earlier period per"
                " question (--compare previous_period or previous_year)",
            )
            return
        if given.filter is not None and given.filter.where_filters:
            context.skip(file, item, f"its input {given.name} carries a filter of its own")
            return
    parsed = parse(params.expr or "")
    if not is_successful(parsed):
        context.skip(file, item, parsed.failure())
        return
    node = parsed.unwrap()
    while isinstance(node, exp.Paren):
        node = node.this
    op = _DERIVED_OPS.get(type(node))
    sides = [node.this, node.expression] if isinstance(node, exp.Binary) and op is not None else []
    names = [s.name for s in sides if isinstance(s, SqlColumn) and not s.table]
    if op is None or len(names) != 2 or any(n not in inputs for n in names) or len(set(names)) < 2:
        context.skip(
            file,
            item,
            f"its expr {quoted(params.expr or '')} is not one of + - * / between two of its"
            " metrics, the four operations a derived metric has",
        )
        return
    first, second = (inputs[n].name for n in names)
    if first == second:
        context.skip(file, item, "it combines one metric with itself")
        return
    _write_derived(context, metric, file, item, op, first, second)


def _write_derived(
    context: _Context, metric: Metric, file: str, item: str, op: str, first: str, second: str
) -> None:
    referents = [context.carried.get(first), context.carried.get(second)]
    if (
        referents[0] is None
        or referents[1] is None
        or None
        in (
            referents[0].model,
            referents[1].model,
        )
    ):
        missing = first if referents[0] is None or referents[0].model is None else second
        context.skip(
            file, item, f"its input {missing} is not carried over as a metric with a measure"
        )
        return
    a, b = referents[0], referents[1]
    grains = [g for g in a.grains if g in b.grains]
    dimensions = [d for d in a.dimensions if d in b.dimensions]
    lines = [
        MARK.format(file=file),
        "kind: metric",
        f"name: {scalar(metric.name)}",
        "derived:",
        f"  op: {op}",
        f"  of: [{scalar(first)}, {scalar(second)}]",
        *(["  zero_denominator: yields_null"] if op == "ratio" else []),
        f"grains: [{', '.join(grains)}]",
        f"dimensions: [{', '.join(scalar(d) for d in dimensions)}]",
        "audience: open",
    ]
    _document(context, f"metrics/{metric.name}.md", lines, _metric_prose(metric))
    context.carried[metric.name] = _Carried(grains, dimensions, None)


def _write_metric(
    context: _Context,
    metric: Metric,
    file: str,
    term: _Term,
    measure: Mapping[str, Tree],
    filters: Sequence[Tree],
) -> None:
    written, usable, refused = emit_dimensions(context, term.model)
    for name, reason in refused:
        context.skip(
            file,
            f"metric {metric.name}: dimension {name}",
            f"not listed: {reason}; a metric then declares it with the via chain it means",
        )
    ((kind, body),) = measure.items()
    if kind == "simple":
        measure_lines = [f"  simple: {flow(body)}"]
    else:
        assert isinstance(body, dict)
        measure_lines = ["  ratio:"] + [f"    {k}: {flow(v)}" for k, v in body.items()]
    lines = [
        MARK.format(file=file),
        "kind: metric",
        f"name: {scalar(metric.name)}",
        f"model: {scalar(term.model)}",
        "measure:",
        *measure_lines,
        f"time_column: {scalar(term.time_column)}",
        *([f"semi_additive: {flow(term.semi)}"] if term.semi is not None else []),
        f"grains: [{', '.join(term.grains)}]",
        *(["required_filters:", *(f"  - {flow(f)}" for f in filters)] if filters else []),
        *written,
        "audience: open",
    ]
    _document(context, f"metrics/{metric.name}.md", lines, _metric_prose(metric))
    context.carried[metric.name] = _Carried(term.grains, usable, term.model)


# --- prose and documents -------------------------------------------------------------------


def _prose(description: str | None, label: str | None) -> str:
    """A description and a label as catalog prose: the author's text, lines kept."""
    parts = [p.replace("\r\n", "\n").strip() for p in (label, description) if p and p.strip()]
    if label and description and label.strip():
        parts[0] = f"{label.strip()}."
    return "\n\n".join(parts)


def _metric_prose(metric: Metric) -> str:
    return _prose(metric.description, metric.label) or (
        f"The dbt metric {metric.name} (it has no description)."
    )


def _document(context: _Context, path: str, lines: Sequence[str], body: str) -> None:
    text = "---\n" + "\n".join(lines) + "\n---\n" + _safe_body(body) + "\n"
    context.documents.append(DraftDocument(path=path, text=text))


def _safe_body(body: str) -> str:
    """Prose as a body the catalog reads back exactly: no carriage return, no line of its own
    ``---`` issue (the front matter has ended before it), no trailing blank lines."""
    cleaned = "".join(ch if ch in "\n\t" or ch.isprintable() else " " for ch in body)
    return cleaned.rstrip("\n") or "(no description)"
