r"""The physical schema: the models behind the metrics, listed only when the operator says so.

``prompt.physical_schema: listed`` lets an agent read which tables and columns the certified
metrics are computed from, as one text, descriptive only: nothing in it is certified, a
question still has no field for a table or a column, and every name in it is untrusted content.
It is off (``hidden``) by default and carried by MCP alone, as a resource
(:data:`PHYSICAL_SCHEMA_URI`), never by the prompt, ``describe_catalog`` or HTTP. The text::

    <the physical-schema notice>
    <the catalog prose notice>
    model: orders
    source: main
    table: orders
    primary key: order_id
    > One row per order.
    column: amount (DECIMAL(12,2))
    > What the buyer was charged.
    definitions: v7 (digest 3f2a)

Names are escaped cells; model and column descriptions are catalog prose, quoted ``> `` or
omitted by ``prompt.catalog_prose`` like every description.
"""

from sutura.core.catalog.view.wire import quoted_lines
from sutura.core.definitions.model import Column, Model
from sutura.core.definitions.pinned import PinnedDefinitions
from sutura.core.nouns.notices import PHYSICAL_NOTICE
from sutura.core.nouns.prose import Carried, CatalogProse, catalog_notice
from sutura.core.text.escape import escape_cell


def physical_schema_text(pinned: PinnedDefinitions, prose: CatalogProse) -> str:
    """The listing; total (every name escaped, every description quoted or omitted)."""
    lines = [PHYSICAL_NOTICE, catalog_notice(prose)]
    for model in pinned.catalog.models:
        lines += _model_lines(model, prose)
    version, digest = escape_cell(pinned.version), escape_cell(pinned.digest)
    lines.append(f"definitions: {version} (digest {digest})")
    return "\n".join(lines)


def _model_lines(model: Model, prose: CatalogProse) -> list[str]:
    lines = [
        f"model: {escape_cell(model.name)}",
        f"source: {escape_cell(model.source)}",
        f"table: {escape_cell(model.table)}",
    ]
    if model.primary_key is not None:
        lines.append(f"primary key: {escape_cell(model.primary_key)}")
    lines += quoted_lines(Carried.under(prose, model.description))
    for column in model.columns:
        lines += _column_lines(column, prose)
    return lines


def _column_lines(column: Column, prose: CatalogProse) -> list[str]:
    typed = "" if column.type is None else f" ({escape_cell(column.type)})"
    line = f"column: {escape_cell(column.name)}{typed}"
    return [line, *quoted_lines(Carried.under(prose, column.description or ""))]
