"""What the checks share: a problem at a key path, carried out of nested checks, and the
column lookup a caller gives."""

from collections.abc import Callable
from typing import NamedTuple, NoReturn

from returns.result import Result

from sutura.core.expression.nodes import Column, Expr
from sutura.core.expression.types import SqlType
from sutura.core.nouns.frozen import Frozen

ColumnTypes = Callable[[Column], Result[SqlType | None, tuple[str, str]]]
"""A column's declared type (None: declared without one), or why the column cannot be read:
the key inside the column node it concerns (``column``, ``via``, ``via[1]``) and the problem."""


class ExpressionError(Frozen, frozen=True):
    """A problem at ``key``, a key path relative to the tree's own key ("" for the tree)."""

    key: str
    problem: str


class Typed(NamedTuple):
    """A checked expression, its bare constants typed, and its result type."""

    expr: Expr
    type: SqlType


class ProblemError(Exception):
    """Carries the first problem out of the nested checks (caught at the entry points)."""

    def __init__(self, key: str, problem: str) -> None:
        """A problem at ``key``."""
        super().__init__(problem)
        self.error = ExpressionError(key=key, problem=problem)


def refuse(key: str, problem: str) -> NoReturn:
    """Stop the check with ``problem`` at ``key``."""
    raise ProblemError(key, problem)


def at(path: str, key: str) -> str:
    """``key`` inside ``path``: ``path.key``, or ``key`` at the root.

    >>> at("", "add[0]"), at("of", "add[0]")
    ('add[0]', 'of.add[0]')
    """
    return f"{path}.{key}" if path else key
