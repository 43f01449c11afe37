"""An official query's answer on one engine, as the canonical text cells sutura's answer has.

The query's tables are qualified with the workload's schema: sqlglot reads the text in the
engine's own dialect and writes it back in the same one (never translated from another
dialect: that would change what a division of decimals means). Every cell is
:func:`~sutura.core.sql.cells.cell_text` of what the engine's driver returned
(:func:`~tests.workloads.engines.fetch_cells`), so the answers of DuckDB, PostgreSQL and Spark
compare byte for byte, except where the engines' own SQL differs in what it returns. There the
oracle states the one answer, as sutura's documentation does:

- **Quotients.** An output column that is an average (``avg(x)``) or a division (``a / b``) is
  fetched as its exact parts (``sum(x)`` and ``count(x)``; ``a`` and ``b``) and divided here
  exactly, written with six decimal places rounded half to even (sutura's
  :func:`~sutura.core.sql.derive.fixed`); NULL where the divisor is zero or NULL. The engines'
  own quotients differ (DuckDB divides decimals as doubles, PostgreSQL to at least 16
  significant digits, Spark to the scale its type rules give).
- **CHAR(n).** An output column named as a ``CHAR(n)`` column of the workload is its value
  without the trailing blanks PostgreSQL and Spark pad it with (DuckDB stores no pad):
  ``'ASIA'``, never ``'ASIA' + 21 blanks``. PostgreSQL's own ``CAST(n_name AS text)`` gives the
  same; blanks are not significant in ``CHAR(n)`` comparisons on either engine.

>>> print(statement("select avg(x) as a, y from t", "w", Dialect.POSTGRES).sql)
SELECT SUM(x) AS "a.numerator", COUNT(x) AS "a.denominator", y FROM w.t
"""

from fractions import Fraction
from typing import Final, NamedTuple, assert_never

from sqlglot import exp, parse_one

from sutura.core.nouns.dialect import Dialect
from sutura.core.sql.derive import fixed
from tests.workloads.engines import Cells, Loaded, dialect_of, fetch_cells
from tests.workloads.tables import Table, char_columns


class Passed(NamedTuple):
    """An output column fetched as it is, at ``at``."""

    at: int
    unpadded: bool


class Divided(NamedTuple):
    """An output column fetched as a numerator and a denominator, divided exactly."""

    numerator: int
    denominator: int


Output = Passed | Divided


class Statement(NamedTuple):
    """The statement run on one engine, and how its fetched columns make the answer's."""

    sql: str
    columns: tuple[str, ...]
    outputs: tuple[Output, ...]


_NUMERATOR: Final = ".numerator"
_DENOMINATOR: Final = ".denominator"


def answer(text: str, on: Loaded, tables: tuple[Table, ...] = ()) -> Cells:
    """The answer of the query ``text`` where ``on`` names, as canonical text cells.

    Args:
        text: One ``SELECT`` over the workload's unqualified tables.
        on: The engine and schema holding the workload.
        tables: The workload's tables (their ``CHAR(n)`` columns are written without pad).
    """
    planned = statement(text, on.schema, dialect_of(on), char_columns(tables))
    fetched = fetch_cells(on, planned.sql)
    rows = [[_cell(row, output) for output in planned.outputs] for row in fetched.rows]
    return Cells(planned.columns, rows)


def statement(
    text: str,
    schema: str,
    engine: Dialect,
    unpadded: frozenset[str] = frozenset(),
    *,
    exact_quotients: bool = True,
) -> Statement:
    """``text`` with its tables in ``schema`` and (unless ``exact_quotients`` is false: the
    engine's own quotients) its quotients as parts, for ``engine``."""
    tree = parse_one(text, read=engine.value)
    assert isinstance(tree, exp.Select), "an official query is one SELECT"
    for table in tree.find_all(exp.Table):
        if not table.args.get("db"):
            table.set("db", exp.to_identifier(schema))
    selected: list[exp.Expr] = []
    outputs: list[Output] = []
    names: list[str] = []
    for projection in tree.selects:
        name = projection.alias_or_name
        names.append(name)
        parts = _parts(projection.unalias()) if exact_quotients else None
        if parts is None:
            outputs.append(Passed(len(selected), name in unpadded))
            selected.append(projection)
            continue
        outputs.append(Divided(len(selected), len(selected) + 1))
        selected.append(exp.alias_(parts[0], name + _NUMERATOR, quoted=True))
        selected.append(exp.alias_(parts[1], name + _DENOMINATOR, quoted=True))
    tree.set("expressions", selected)
    return Statement(tree.sql(dialect=engine.value), tuple(names), tuple(outputs))


def _parts(value: exp.Expr) -> tuple[exp.Expr, exp.Expr] | None:
    """An average's sum and count, a division's two sides, or None for any other value."""
    if isinstance(value, exp.Avg):
        return exp.Sum(this=value.this.copy()), exp.Count(this=value.this.copy())
    if isinstance(value, exp.Div):
        return value.this.copy(), value.expression.copy()
    return None


def _cell(row: list[str | None], output: Output) -> str | None:
    match output:
        case Passed(at=at, unpadded=unpadded):
            value = row[at]
            return value.rstrip(" ") if unpadded and value is not None else value
        case Divided(numerator=upper, denominator=lower):
            return _quotient(row[upper], row[lower])
        case _:
            assert_never(output)


def _quotient(numerator: str | None, denominator: str | None) -> str | None:
    if numerator is None or denominator is None or Fraction(denominator) == 0:
        return None
    exact = Fraction(numerator) / Fraction(denominator)
    return fixed(exact.numerator, exact.denominator)
