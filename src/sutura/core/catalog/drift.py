"""What changed in a source since its models were written: what ``sutura init`` says when it is
run again over a catalog an author has been editing.

Each authored model of the source is compared with the table it reads as the source reports it
now: the columns the table gained (the model does not list them), the columns it lost (the model
lists them; ``sutura check`` would refuse them), or the table gone altogether — only when every
table was asked for (``init --table`` asks for a few). Names are the source's and the author's,
so each is escaped where it is written.

>>> from sutura.core.definitions.model import Column
>>> authored = [("models/orders.md", Model(name="orders", source="main", table=("orders",),
...     columns=(Column(name="id"), Column(name="legacy"))))]
>>> found = [FoundTable(table=("orders",), columns=(("id", "INTEGER"), ("discount", "DECIMAL")))]
>>> [d.lines() for d in model_drift(authored, found, Dialect.DUCKDB, every_table=True)]
[['models/orders.md (table orders): new in the source: discount; gone from it: legacy']]
"""

from collections.abc import Sequence

from sutura.core.catalog.checks.source_schema import column_fold
from sutura.core.catalog.draft import FoundTable
from sutura.core.definitions.model import Model, TablePath, table_label
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.frozen import Frozen
from sutura.core.text.escape import escape_text


class ModelDrift(Frozen, frozen=True):
    """One authored model whose table changed: the columns it gained and lost, or gone."""

    file: str
    table: TablePath
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    gone: bool = False

    def lines(self) -> list[str]:
        """What changed, as one line for the author."""
        where = f"{escape_text(self.file)} (table {escape_text(table_label(self.table))})"
        if self.gone:
            return [f"{where}: the source has no such table any more"]
        parts = []
        if self.added:
            parts.append(f"new in the source: {', '.join(map(escape_text, self.added))}")
        if self.dropped:
            parts.append(f"gone from it: {', '.join(map(escape_text, self.dropped))}")
        return [f"{where}: {'; '.join(parts)}"]


def model_drift(
    authored: Sequence[tuple[str, Model]],
    found: Sequence[FoundTable],
    dialect: Dialect,
    *,
    every_table: bool,
) -> list[ModelDrift]:
    """Every authored model (file, model) whose table differs from what the source reports."""
    tables = {table.table: table for table in found}
    fold = column_fold(dialect)
    drifts = []
    for file, model in authored:
        table = tables.get(model.table)
        if table is None:
            if every_table:
                drifts.append(ModelDrift(file=file, table=model.table, gone=True))
            continue
        listed = {fold(column.name) for column in model.columns}
        present = {fold(name) for name, _ in table.columns}
        added = tuple(name for name, _ in table.columns if fold(name) not in listed)
        dropped = tuple(c.name for c in model.columns if fold(c.name) not in present)
        if added or dropped:
            drifts.append(ModelDrift(file=file, table=model.table, added=added, dropped=dropped))
    return drifts
