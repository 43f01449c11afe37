"""The statement that shows a model's columns as its source has them, reading no row.

It names the table exactly as a compiled question does (the same quoting, the same default
schema), so a table it finds is the table every question reads.

>>> from sutura.core.definitions.model import Model
>>> from sutura.core.nouns.dialect import Dialect
>>> def probe(*path: str) -> None:
...     print(schema_probe(Model(name="m", source="s", table=path, columns=()), Dialect.POSTGRES))
>>> probe("sales", "orders"); probe("main.victim")
SELECT * FROM "sales"."orders" AS "t0" LIMIT 0
SELECT * FROM "main.victim" AS "t0" LIMIT 0
"""

from sqlglot import exp

from sutura.core.definitions.model import Model
from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.parts import base_table


def schema_probe(model: Model, dialect: Dialect) -> str:
    """``SELECT * FROM <the model's table> LIMIT 0`` in ``dialect``, built from nodes made
    for it alone (no copies, nothing parsed: a catalog of 200 models is checked at startup)."""
    tree = exp.select(exp.Star()).from_(base_table(model), copy=False)
    tree = tree.limit(exp.Literal.number(0), copy=False)
    return tree.sql(dialect=dialect.value, copy=False)
