"""A written ``kind: metric`` document with ``derived:`` to a :class:`Derived`.

Only the document itself is checked here (vocabulary, names, ``zero_denominator`` exactly for a
ratio); whether the referents exist and can be aligned is checked with the whole catalog
(:mod:`sutura.core.catalog.checks.derived`).
"""

import decimal
import re
from typing import assert_never

from sutura.core.catalog.document.build import Checker
from sutura.core.catalog.document.metric import PERIOD, audience
from sutura.core.catalog.document.written import WrittenDerivedMetric
from sutura.core.definitions.model import Derived, DerivedOp, ZeroDenominator
from sutura.core.nouns.grain import Grain


def build_derived(check: Checker, written: WrittenDerivedMetric, body: str) -> Derived:
    """A :class:`Derived` from its written document."""
    name = check.name("name", written.name)
    op = check.choice("derived.op", written.derived.op, DerivedOp)
    if len(written.derived.of) != 2:
        check.fail("derived.of", "expected exactly two metric names, [first, second]")
    first = check.name("derived.of[0]", written.derived.of[0])
    second = check.name("derived.of[1]", written.derived.of[1])
    if first == second:
        check.fail("derived.of[1]", "name two different metrics")
    if first == name or second == name:
        check.fail("derived.of", "a derived metric may not refer to itself")
    zero = _zero_denominator(check, op, written.derived.zero_denominator)
    dimensions = [check.name(f"dimensions[{i}]", d) for i, d in enumerate(written.dimensions)]
    check.unique("dimensions[{}]", dimensions, "the dimension")
    for i, dimension in enumerate(dimensions):
        if dimension == PERIOD:
            check.fail(f"dimensions[{i}]", "a dimension may not be called period")
    return Derived(
        name=name,
        op=op,
        of=(first, second),
        grains=tuple(check.choice(f"grains[{i}]", g, Grain) for i, g in enumerate(written.grains)),
        dimensions=tuple(dimensions),
        zero_denominator=zero,
        audience=audience(check, written.audience),
        description=body,
        scale=_scale(check, written.derived.scale),
    )


_DECIMAL = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")


def _scale(check: Checker, written: str | None) -> str | None:
    """An exact decimal other than zero (``100``, ``0.001``, ``-1``), as written."""
    if written is None:
        return None
    if _DECIMAL.fullmatch(written) is None:
        check.fail(
            "derived.scale",
            "expected a number written as plain decimal text (100, 0.001, -1): at most 18"
            " digits before the point and 18 after, no exponent or grouping",
        )
    if set(written) <= {"-", "0", "."}:
        check.fail("derived.scale", "a scale of zero would make every value zero")
    return str(decimal.Decimal(written))  # 007 is 7; 100.0 keeps its scale, a meaning


def _zero_denominator(check: Checker, op: DerivedOp, written: str | None) -> ZeroDenominator | None:
    """Required for a ratio, refused for any other op."""
    match op:
        case DerivedOp.RATIO:
            if written is None:
                check.fail(
                    "derived.zero_denominator",
                    "missing required key for a ratio; expected yields_null or fails",
                )
            return check.choice("derived.zero_denominator", written, ZeroDenominator)
        case DerivedOp.DIFFERENCE | DerivedOp.SUM | DerivedOp.PRODUCT:
            if written is not None:
                check.fail("derived.zero_denominator", "only a ratio has a zero_denominator")
            return None
        case _:
            assert_never(op)
