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
turned into text by sutura); its columns' types, in that run's description, give its wrapped
form, kept per statement and its parameters' Python types (the types DuckDB binds them as). A
later run takes the wrapped form when the last run was long enough to pay for the projection
(:data:`WORTH_CASTING`): a statement run once (an anchor, a model check) and a short answer asked
again and again (a server's usual question) cost nothing more.
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
WORTH_CASTING: Final = 1024
"""The cells a statement's last run cast (rows × cast columns) from which its next run is
wrapped: the projection costs the engine about 0.3 ms a statement (the bench question on the
20,000-order example: 1.3 ms of CPU plain, 1.7 wrapped), and turning a date or a decimal into
text in Python about 0.5 µs."""


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


class _Known(NamedTuple):
    """A statement's wrapped form, how many of its columns it casts, and its last run's rows."""

    statement: TextStatement
    cast: int
    rows: int


class TextStatements:
    """The wrapped form of each statement, learnt from its first run, and taken by a later run
    when the last one was long enough to pay for it."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, tuple[type, ...]], _Known] = {}

    def wrapped(self, sql: str, params: Sequence[object]) -> TextStatement | None:
        """The wrapped statement to run for ``sql`` with ``params``, once its columns are
        known and its last run cast at least :data:`WORTH_CASTING` cells; else None (run the
        statement itself)."""
        known = self._kept.get((sql, tuple(map(type, params))))
        if known is None or known.cast * known.rows < WORTH_CASTING:
            return None
        return known.statement

    def ran(
        self,
        sql: str,
        params: Sequence[object],
        description: Sequence[Sequence[object]],
        rows: int,
        wrapped: TextStatement | None,
        text: frozenset[int] | None = None,
    ) -> frozenset[int]:
        """Note a run of ``sql`` with ``params`` (the wrapped one, or the statement itself with
        this ``description``) that fetched ``rows`` rows; the positions of its columns that came
        back as text (``text``, when the caller found them already). The first run of a
        statement gives its wrapped form."""
        key = (sql, tuple(map(type, params)))
        known = self._kept.get(key)
        if known is None:
            columns = [str(column[0]) for column in description]
            type_ids = [_type_id(column[1]) for column in description]
            statement = text_statement(sql, columns, type_ids)
            cast = sum(1 for kind in type_ids if kind in _CAST or kind == _DATE)
            if len(self._kept) >= _KEPT:  # bounded; the statements are the memo's own
                self._kept.clear()
            known = _Known(statement, cast, rows)
            self._kept[key] = known
        elif known.rows != rows:
            self._kept[key] = known._replace(rows=rows)
        return text_columns(description, wrapped) if text is None else text


def text_columns(
    description: Sequence[Sequence[object]], wrapped: TextStatement | None
) -> frozenset[int]:
    """The positions of the columns that come back as text: the wrapped statement's, or the
    ``VARCHAR`` columns of the statement itself (of this ``description``)."""
    if wrapped is not None:
        return wrapped.text_columns
    # The type's id read in place (as _type_id reads it): a call per column cost more.
    return frozenset(
        i for i, column in enumerate(description) if getattr(column[1], "id", None) == _TEXT
    )


def _type_id(kind: object) -> str:
    """A column type's id (``decimal``, ``varchar``, …), as a DuckDB description gives it."""
    type_id = getattr(kind, "id", None)
    return type_id if isinstance(type_id, str) else ""
