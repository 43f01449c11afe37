"""What ``compile_question`` shows: a question's statement, its bound values and its plan, as
the source would receive them, touching no data.

Both halves are made from the one :class:`~sutura.core.sql.compiled.CompiledQuery` the service
runs for ``ask_metric``: the text half (:func:`shown_text`, what ``sutura compile`` prints) and
the structured half (:class:`ShownStatement`: each value typed, with its exact text).

>>> import datetime
>>> query = CompiledQuery(sql="SELECT 1 WHERE d >= ?", params=(datetime.date(2024, 1, 1),),
...     columns=("period",), plan=("one line",), outputs=(), selected_width=1, source="main",
...     dialect=Dialect.DUCKDB)
>>> print(shown_text(query))
-- dialect: duckdb
SELECT 1 WHERE d >= ?
<BLANKLINE>
parameters:
  $1: datetime.date(2024, 1, 1)
<BLANKLINE>
plan:
  one line
>>> shown_statement(query).parameters
[ShownParameter(position=1, type='date', text='2024-01-01')]
"""

import datetime
import decimal

from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.frozen import Frozen
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.text.escape import escape_text


class ShownParameter(Frozen, frozen=True):
    """One bound value: its placeholder number, its type and its exact text (escaped)."""

    position: int
    type: str
    text: str


class ShownStatement(Frozen, frozen=True):
    """A question compiled as ``ask_metric`` would run it: ``compile_question``'s structured
    half."""

    dialect: Dialect
    sql: str
    parameters: list[ShownParameter]
    plan: list[str]
    columns: list[str]


def _type_of(value: object) -> str:
    match value:
        case bool():
            return "boolean"
        case int():
            return "integer"
        case decimal.Decimal():
            return "decimal"
        case datetime.date():
            return "date"
        case str():
            return "text"
        case _:
            return type(value).__name__


def shown_statement(query: CompiledQuery) -> ShownStatement:
    """The statement, its parameters (typed, exact text) and its plan."""
    parameters = [
        ShownParameter(position=i, type=_type_of(p), text=escape_text(str(p)))
        for i, p in enumerate(query.params, 1)
    ]
    return ShownStatement(
        dialect=query.dialect,
        sql=query.sql,
        parameters=parameters,
        plan=list(query.plan),
        columns=list(query.columns),
    )


def shown_text(query: CompiledQuery) -> str:
    """Statement, parameters and plan, as ``sutura compile`` prints them."""
    params = "\n".join(f"  ${i}: {escape_text(repr(p))}" for i, p in enumerate(query.params, 1))
    plan = "\n".join(f"  {escape_text(line)}" for line in query.plan)
    head = f"-- dialect: {query.dialect}\n{query.sql}"
    return f"{head}\n\nparameters:\n{params or '  (none)'}\n\nplan:\n{plan}"
