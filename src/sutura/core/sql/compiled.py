"""What a compiled question is: the statement, its bound values, its dialect, and how its rows
become the answer. Kept apart from the compiler (:mod:`sutura.core.sql.compile`), which builds
statements with sqlglot: sources, shaping and the surfaces read a compiled question without
loading the compiler, so ``sutura mcp`` answers its handshake before the compiler is imported.
"""

import functools
from typing import assert_never

from sutura.core.definitions.model import ZeroDenominator
from sutura.core.nouns.dialect import Dialect
from sutura.core.nouns.frozen import Frozen
from sutura.core.question.resolve import Resolved


class Passthrough(Frozen, frozen=True, tag="pass"):
    """The answer column is selected column ``index`` as it is."""

    index: int


class TermIndex(Frozen, frozen=True):
    """Where a term's exact value is: selected column ``value``, over selected ``count`` if set."""

    value: int
    count: int | None = None


class Quotient(Frozen, frozen=True, tag="quotient"):
    """The answer column is numerator / denominator (or the numerator alone), computed exactly."""

    numerator: TermIndex
    denominator: TermIndex | None
    zero_denominator: ZeroDenominator


Output = Passthrough | Quotient


class Presence(Frozen, frozen=True):
    """Whether an asked derived metric's ``leaves`` grouped on one model counted a row of a
    group: selected column ``index`` counts the rows their required filters pass. Where it is
    zero, another metric of that model brought the group in, and the derived metric reads those
    leaves as it does alone, as a model without a row of the group: NULL."""

    metric: str
    leaves: tuple[str, ...]
    index: int


class Derivation(Frozen, frozen=True):
    """What :mod:`sutura.core.sql.derive` computes from the statement's rows: derived metrics,
    compare, window, fill and ``top`` of a question that has any of them.

    Attributes:
        resolved: The question (its range, grain, compare, window, fill and top).
        zero_filled: Per metric, whether a filled period holds zero (sums and counts) or NULL.
        presence: Where an asked derived metric's leaves counted a row (joined statements only).
        text_keys: Per key column (period, then dimensions), whether its values are text,
            ordered by code point; any other value is ordered by its value (a number as a
            number, not as its text).
    """

    resolved: Resolved
    zero_filled: tuple[bool, ...]
    presence: tuple[Presence, ...] = ()
    text_keys: tuple[bool, ...] = ()


class CompiledQuery(Frozen, frozen=True):
    """One statement ready for a source, and how to shape its rows into the answer.

    Attributes:
        sql: The statement in ``dialect``, with positional placeholders.
        params: The bound values in placeholder order (``datetime.date``, ``str``, ``int``).
        columns: The answer's column names: ``period`` (with a grain), dimensions, then metrics.
        plan: Human-readable lines describing what the statement does.
        outputs: One instruction per answer column, over the selected columns.
        selected_width: How many columns the statement selects.
        source: The alias of the source that holds the metrics' model.
        dialect: The dialect ``sql`` is written in.
        derivation: What is computed from the statement's rows after it runs, if anything.
    """

    sql: str
    params: tuple[object, ...]
    columns: tuple[str, ...]
    plan: tuple[str, ...]
    outputs: tuple[Output, ...]
    selected_width: int
    source: str
    dialect: Dialect
    derivation: Derivation | None = None

    @property
    def needs_shaping(self) -> bool:
        """Whether any answer column differs from the selected column at its position."""
        return self.derivation is not None or _reordered(self.outputs, self.selected_width)


@functools.lru_cache(maxsize=1024)
def _reordered(outputs: tuple[Output, ...], selected_width: int) -> bool:
    """Whether ``outputs`` are anything but the ``selected_width`` selected columns in order
    (kept per outputs: a server asks it of the same compiled question at every answer)."""
    return selected_width != len(outputs) or any(selected_at(o) != i for i, o in enumerate(outputs))


def selected_at(output: Output) -> int | None:
    """The selected column an answer column is as it is, or None for a computed one."""
    match output:
        case Passthrough():
            return output.index
        case Quotient():
            return None
        case _:
            assert_never(output)
