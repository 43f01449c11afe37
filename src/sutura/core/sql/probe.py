"""The statement that shows a model's columns as its source has them, reading no row.

It names the table exactly as a compiled question does (the same quoting, the same default
schema), so a table it finds is the table every question reads.

>>> from sutura.core.definitions.model import Model
>>> from sutura.core.nouns.dialect import Dialect
>>> model = Model(name="m", source="s", table="sales.orders", columns=())
>>> print(schema_probe(model, Dialect.POSTGRES))
SELECT * FROM "sales"."orders" AS "t0" LIMIT 0
"""

from sqlglot import exp

from sutura.core.definitions.model import Model
from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.parts import base_table


def schema_probe(model: Model, dialect: Dialect) -> str:
    """``SELECT * FROM <the model's table> LIMIT 0`` in ``dialect``."""
    return exp.select(exp.Star()).from_(base_table(model)).limit(0).sql(dialect=dialect.value)
