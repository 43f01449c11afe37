"""The second opinion on a raw SQL statement: one read-only query, or a refusal.

The engine holds the line (a read-only, locked-down connection; a ``READ ONLY`` transaction
under a role that may only ``SELECT``). This module is defence in depth only: sqlglot reads the
statement in the source's dialect and agrees to run it only when it finds exactly one
statement whose root is a query (``SELECT``, ``VALUES``, a set operation, a parenthesised
query) and no node anywhere in it that writes, changes a setting, ends a transaction, locks or
reaches outside (``INSERT`` in a ``WITH``, ``SELECT … INTO``, ``COPY``, ``ATTACH``, ``SET``,
``COMMIT``, ``FOR UPDATE``, …). Whatever sqlglot cannot read is refused, never guessed at: an
unknown statement, a statement it cannot parse, one nested too deep for it.

The statement is never rewritten: what runs is exactly what the caller sent, or nothing.

>>> check_statement("SELECT 1; -- done", "duckdb").unwrap()
'SELECT 1; -- done'
>>> check_statement("SELECT 1; DROP TABLE t", "postgres").failure().code.value
'not_one_statement'
>>> writes = "WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"
>>> check_statement(writes, "postgres").failure().code.value
'not_read_only'
"""

from typing import Final, Literal

import sqlglot
from returns.result import Failure, Result, Success
from sqlglot import exp
from sqlglot.errors import SqlglotError

from sutura.core.raw.outcome import RawRefusal, RawRefusalCode, raw_refusal
from sutura.core.text.escape import has_lone_surrogate

RawDialect = Literal["duckdb", "postgres"]
"""The dialects the raw tool reads statements in."""


_QUERY_ROOTS: Final = (exp.Query, exp.Values)
# Any of these anywhere in the tree makes the statement something other than a read.
_NOT_A_READ: Final = (
    exp.Insert,
    exp.Update,
    exp.Delete,
    exp.Merge,
    exp.Create,
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Copy,
    exp.Command,
    exp.Pragma,
    exp.Set,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.Into,
    exp.Attach,
    exp.Detach,
    exp.Install,
    exp.Export,
    exp.LoadData,
    exp.Lock,
    exp.Describe,
    exp.Show,
    exp.Summarize,
    exp.Kill,
    exp.Grant,
    exp.Revoke,
    exp.Analyze,
    exp.Refresh,
    exp.Cache,
    exp.Uncache,
    exp.Declare,
    exp.Execute,
)


def _statements(statement: str, dialect: RawDialect) -> list[exp.Expr] | None:
    """The statements sqlglot finds (a trailing comment's empty statement dropped), or None."""
    try:
        parsed = sqlglot.parse(statement, read=dialect)
    except (SqlglotError, RecursionError):
        return None
    return [s for s in parsed if s is not None and not isinstance(s, exp.Semicolon)]


def _is_a_read(root: exp.Expr) -> bool:
    return isinstance(root, _QUERY_ROOTS) and not any(
        isinstance(node, _NOT_A_READ) for node in root.walk()
    )


def readable(statement: str) -> Result[str, RawRefusal]:
    r"""``statement`` unless it holds a lone surrogate, which no parser can be handed as UTF-8.

    >>> readable("SELECT '\ud800'").failure().code.value
    'not_read_only'
    """
    if has_lone_surrogate(statement):
        return Failure(raw_refusal(RawRefusalCode.NOT_READ_ONLY))
    return Success(statement)


def check_statement(statement: str, dialect: RawDialect) -> Result[str, RawRefusal]:
    """``statement`` unchanged when sqlglot reads it as exactly one read-only query.

    Args:
        statement: The caller's text, exactly as sent.
        dialect: The source's dialect.

    Returns:
        The statement, or ``not_one_statement`` (none, or several) or ``not_read_only`` (a
        statement that is not a read, or that sqlglot cannot read at all, or text holding a
        lone surrogate).
    """
    return readable(statement).bind(lambda text: _one_read(text, dialect))


def _one_read(statement: str, dialect: RawDialect) -> Result[str, RawRefusal]:
    """``statement`` when it is exactly one read-only query in ``dialect``."""
    statements = _statements(statement, dialect)
    if statements is None:
        return Failure(raw_refusal(RawRefusalCode.NOT_READ_ONLY))
    if len(statements) != 1:
        return Failure(raw_refusal(RawRefusalCode.NOT_ONE_STATEMENT))
    if not _is_a_read(statements[0]):
        return Failure(raw_refusal(RawRefusalCode.NOT_READ_ONLY))
    return Success(statement)
