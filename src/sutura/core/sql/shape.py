"""Turn a statement's fetched text rows into the answer's rows.

Most columns pass through unchanged. Averages and ratios arrive as their exact parts (sum and
count, numerator and denominator) and are divided here with exact rational arithmetic, then
rounded half-to-even to six decimal places, so every engine gives byte-identical text.

An average of no values (a count of zero) is NULL. A ratio's denominator *is zero* where its
term is zero or aggregated nothing: a count of zero, or a NULL (a sum, min, max or average over
no values). There, ``yields_null`` gives NULL and ``fails`` refuses the whole answer with
``denominator_zero``, whatever the numerator. Elsewhere, a numerator that aggregated nothing
(NULL) gives NULL.

>>> from sutura.core.sql.compiled import Quotient, TermIndex
>>> from sutura.core.definitions.model import ZeroDenominator
>>> ratio = Quotient(numerator=TermIndex(value=0), denominator=TermIndex(value=1),
...                  zero_denominator=ZeroDenominator.YIELDS_NULL)
>>> [_quotient_text(r, ratio) for r in (["2", "3"], ["1", "0"], [None, "0"], [None, "4"])]
['0.666667', None, None, None]
"""

import functools
import operator
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import assert_never

from returns.result import Failure, Result, Success

from sutura.core.definitions.model import ZeroDenominator
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.sql.compiled import CompiledQuery, Output, Passthrough, Quotient, TermIndex
from sutura.core.sql.derive import derive_rows, fixed

Row = list[str | None]
Rational = tuple[int, int]
"""An exact number as (numerator, denominator), the denominator never zero."""


class _RefusedError(Exception):
    """Internal: stops shaping at the first cell that refuses the whole answer."""

    def __init__(self, code: RefusalCode) -> None:
        super().__init__(code.value)
        self.code = code


def shape_rows(
    compiled: CompiledQuery, fetched_rows: list[Row], max_rows: int | None = None
) -> Result[list[Row], Refusal]:
    """The answer's rows, built from the fetched rows of ``compiled``'s statement.

    Args:
        compiled: The compiled statement whose rows these are.
        fetched_rows: Its rows as canonical text (``None`` is SQL NULL), a cell per selected
            column.

    Returns:
        One row per fetched row with exactly the answer's columns, or a refusal
        (``denominator_zero`` under a ratio that fails at zero; ``value_not_representable``
        for a part that is not a finite number; ``result_too_large`` for derived rows, see
        :mod:`sutura.core.sql.derive`, beyond ``max_rows``).
    """
    if not compiled.needs_shaping:
        return Success(fetched_rows)
    derivation = compiled.derivation
    if derivation is not None:
        limit = len(fetched_rows) if max_rows is None else max_rows
        try:
            return derive_rows(compiled, derivation, fetched_rows, _quotient_exact, limit)
        except _RefusedError as stop:
            return Failure(refusal(stop.code))
    cells = [_cell_maker(output) for output in compiled.outputs]
    try:
        return Success([[cell(row) for cell in cells] for row in fetched_rows])
    except _RefusedError as stop:
        return Failure(refusal(stop.code))


def _cell_maker(output: Output) -> Callable[[Row], str | None]:
    """The function that computes one answer cell from a fetched row."""
    match output:
        case Passthrough():
            return operator.itemgetter(output.index)
        case Quotient():
            return functools.partial(_quotient_text, quotient=output)
        case _:
            assert_never(output)


def _quotient_text(row: Row, quotient: Quotient) -> str | None:
    """numerator / denominator (or the numerator alone) as fixed-point text, or None."""
    exact = _quotient_exact(row, quotient)
    return None if exact is None else fixed(exact.numerator, exact.denominator)


def _quotient_exact(row: Row, quotient: Quotient) -> Fraction | None:
    """numerator / denominator (or the numerator alone), exactly, or None."""
    numerator = _term(row, quotient.numerator)
    if quotient.denominator is None:
        return None if numerator is None else Fraction(*numerator)
    denominator = _term(row, quotient.denominator)
    if denominator is None or denominator[0] == 0:
        _refuse_if_it_fails(quotient.zero_denominator)
        return None
    if numerator is None:
        return None
    return Fraction(numerator[0] * denominator[1], numerator[1] * denominator[0])


def _refuse_if_it_fails(rule: ZeroDenominator) -> None:
    """Stop shaping with ``denominator_zero`` under ``fails``; under ``yields_null``, go on."""
    match rule:
        case ZeroDenominator.YIELDS_NULL:
            return
        case ZeroDenominator.FAILS:
            raise _RefusedError(RefusalCode.DENOMINATOR_ZERO)
        case _:
            assert_never(rule)


def _term(row: Row, where: TermIndex) -> Rational | None:
    """A term's exact value: one cell, or a sum over a count (None for a count of zero)."""
    value = _exact(row[where.value])
    if value is None or where.count is None:
        return value
    count = _exact(row[where.count])
    if count is None or count[0] == 0:
        return None
    return value[0] * count[1], value[1] * count[0]


def _exact(text: str | None) -> Rational | None:
    """The exact rational a number's text denotes; a non-finite or non-number refuses."""
    if text is None:
        return None
    try:
        return Decimal(text).as_integer_ratio()
    except (InvalidOperation, ValueError, OverflowError):
        raise _RefusedError(RefusalCode.VALUE_NOT_REPRESENTABLE) from None
