"""Semantic models as model documents, and foreign entities as ``many_to_one`` relationships.

A semantic model becomes a model over its relation's columns as the source reports them, its
primary entity (one column) the primary key; a foreign entity that is another semantic
model's primary entity joins onto it. What has no counterpart is named with its reason."""

from collections.abc import Mapping

from dbt_semantic_interfaces.protocols.semantic_model import SemanticModel
from dbt_semantic_interfaces.type_enums.entity_type import EntityType

from sutura.core.catalog.draft import FoundTable, model_name, scalar
from sutura.core.catalog.error import has_unsafe_characters, quoted
from sutura.core.dbt.context import Context, Model
from sutura.core.dbt.dimensions import bare_column, shared_dimensions
from sutura.core.dbt.documents import add_document, mark, prose
from sutura.core.definitions.model import TablePath, table_label


def add_model(
    context: Context, semantic: SemanticModel, tables: Mapping[TablePath, FoundTable]
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
        key = bare_column(primary.expr, primary.name, columns)
        entity_name = primary.name
        if key is None:
            context.skip(
                file,
                f"entity {primary.name}",
                "its expr is not one column of the table, so the model declares no primary key",
            )
    name = model_name(semantic.name, context.taken_models)
    model = Model(name, file, semantic, columns, key, entity_name)
    context.models[name] = model
    context.by_semantic[semantic.name] = name
    if key is not None and entity_name is not None:
        context.primary.setdefault(entity_name, name)
    for measure in semantic.measures:
        context.measures[measure.name] = (model, measure)
    lines = [
        mark(file),
        "kind: model",
        f"name: {scalar(name)}",
        f"source: {scalar(context.source)}",
        f"table: {_table_yaml(found.table)}",
        *([f"primary_key: {scalar(key)}"] if key is not None else []),
        "columns:",
    ]
    for column, spelled in columns.items():
        lines += [f"  - name: {scalar(column)}", f"    type: {scalar(spelled)}"]
    lines += shared_dimensions(context, model)
    body = prose(semantic.description, semantic.label) or (
        f"The dbt semantic model {semantic.name}, one row per row of"
        f" {quoted(table_label(found.table))}."
    )
    add_document(context, f"models/{name}.md", lines, body)


def _table_yaml(path: TablePath) -> str:
    if len(path) == 1:
        return scalar(path[0])
    return "[" + ", ".join(scalar(part) for part in path) + "]"


def add_relationships(context: Context, model: Model) -> None:
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
        column = bare_column(entity.expr, entity.name, model.columns)
        if column is None or target.key is None:
            context.skip(
                model.file,
                f"entity {entity.name}",
                "its expr is not one column of the table; a relationship joins columns",
            )
            continue
        name = model_name(f"{model.name}_{entity.name}", context.taken_relationships)
        lines = [
            mark(model.file),
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
        add_document(context, f"relationships/{name}.md", lines, body)
        joins.append((entity.name, name, target.name))
    context.joins[model.name] = joins
