"""Canonical cell text written by DuckDB itself, where its own text is exactly the canonical one.

Turning a long answer's values into Python objects and then into text cost more than the
query: for 50,000 rows × 10 columns, DuckDB's ``fetchall`` of dates, decimals and integers as
Python values took 2.4 × the time it took to fetch the same columns cast to ``VARCHAR``, and
:func:`~sutura.core.sql.cells.cell_text` then visited every cell again. So a certified
statement runs wrapped in one projection that casts, in the engine, each column whose type
DuckDB writes exactly as :func:`~sutura.core.sql.cells.cell_text` would write its Python value:

- integers of every width (``TINYINT`` … ``UHUGEINT``): decimal digits, ``-`` when negative;
- ``DECIMAL(p, s)``: fixed point with exactly ``s`` decimals (``0.10``, ``-0.05``, ``5``);
- ``BOOLEAN``: ``true`` / ``false``;
- ``DATE``: ``YYYY-MM-DD``; DuckDB hands Python a date outside Python's range as this very
  text (``10000-01-01``, ``0001-12-31 (BC)``), and ±infinity as Python's first and last
  date, which the cast writes the same way.

``VARCHAR`` is text already. Every other type (floating point, timestamps, intervals, …) is
left to the Python path, untouched. The projection keeps the statement's column names and its
row order (a projection over the statement's ``ORDER BY``), and NULL stays NULL.

A statement's first run is its plain self (its ``VARCHAR`` columns taken as text, the others
turned into text by sutura); its columns' types, in that run's description, give the wrapped
form every later run of it takes, kept per statement and its parameters' Python types (the types
DuckDB binds them as). So a statement run once (an anchor, a model check) costs nothing more.
"""

from collections.abc import Sequence
from typing import Final, NamedTuple

_CAST: Final = frozenset(
    {
        "tinyint",
        "smallint",
        "integer",
        "bigint",
        "hugeint",
        "utinyint",
        "usmallint",
        "uinteger",
        "ubigint",
        "uhugeint",
        "decimal",
        "boolean",
    }
)
_TEXT: Final = "varchar"
_DATE: Final = "date"
_KEPT: Final = 1024
"""Wrapped statements kept at most (a memo of compiled statements, themselves memoised)."""


class TextStatement(NamedTuple):
    """The statement to run, and the positions of its columns that come back as text."""

    sql: str
    text_columns: frozenset[int]


def _quoted(name: str) -> str:
    """``name`` as one DuckDB identifier.

    >>> print(_quoted('say "hi'))
    "say ""hi"
    """
    return '"' + name.replace('"', '""') + '"'


def _column(position: int, name: str, type_id: str) -> tuple[str, bool]:
    """The projection of one column, and whether it comes back as canonical text."""
    column = f"c{position}"
    if type_id in _CAST:
        return f"CAST({column} AS VARCHAR) AS {_quoted(name)}", True
    if type_id == _DATE:
        # Python reads -infinity and infinity as its first and last dates.
        text = (
            f"CASE WHEN isinf({column}) THEN (CASE WHEN {column} > DATE '2000-01-01' "
            f"THEN '9999-12-31' ELSE '0001-01-01' END) ELSE CAST({column} AS VARCHAR) END"
        )
        return f"{text} AS {_quoted(name)}", True
    return f"{column} AS {_quoted(name)}", type_id == _TEXT


def text_statement(sql: str, columns: Sequence[str], type_ids: Sequence[str]) -> TextStatement:
    r"""``sql`` wrapped in the projection that casts its columns of ``type_ids`` to their text.

    >>> wrapped = text_statement("SELECT 1 AS n, 2.5 AS x", ["n", "x"], ["integer", "double"])
    >>> print(wrapped.sql.replace(" FROM", "\nFROM"))
    SELECT CAST(c0 AS VARCHAR) AS "n", c1 AS "x"
    FROM (SELECT 1 AS n, 2.5 AS x) AS "sutura_text"(c0, c1)
    >>> wrapped.text_columns
    frozenset({0})
    """
    pairs = enumerate(zip(columns, type_ids, strict=True))
    projected = [_column(i, name, kind) for i, (name, kind) in pairs]
    if not any(kind in _CAST or kind == _DATE for kind in type_ids):
        text = frozenset(i for i, kind in enumerate(type_ids) if kind == _TEXT)
        return TextStatement(sql, text)
    positions = ", ".join(f"c{i}" for i in range(len(projected)))
    select = ", ".join(expression for expression, _ in projected)
    wrapped = f'SELECT {select} FROM ({sql}) AS "sutura_text"({positions})'
    return TextStatement(wrapped, frozenset(i for i, (_, text) in enumerate(projected) if text))


class TextStatements:
    """The wrapped form of each statement, learnt from its first run."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, tuple[type, ...]], TextStatement] = {}

    def wrapped(self, sql: str, params: Sequence[object]) -> TextStatement | None:
        """The statement to run for ``sql`` with ``params``, once its columns are known."""
        return self._kept.get((sql, tuple(map(type, params))))

    def learn(
        self, sql: str, params: Sequence[object], description: Sequence[Sequence[object]]
    ) -> frozenset[int]:
        """Keep the wrapped form of ``sql`` run with ``params``, from the ``description`` of
        its first run; the positions of that run's columns that are text already."""
        columns = [str(column[0]) for column in description]
        type_ids = [_type_id(column[1]) for column in description]
        if len(self._kept) >= _KEPT:  # bounded; the statements are the memo's own
            self._kept.clear()
        self._kept[(sql, tuple(map(type, params)))] = text_statement(sql, columns, type_ids)
        return frozenset(i for i, kind in enumerate(type_ids) if kind == _TEXT)


def _type_id(kind: object) -> str:
    """A column type's id (``decimal``, ``varchar``, …), as a DuckDB description gives it."""
    type_id = getattr(kind, "id", None)
    return type_id if isinstance(type_id, str) else ""
