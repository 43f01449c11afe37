"""``prompt.formulas``: whether agents read each metric's definition as a formula.

A formula names columns (``sum(l_extendedprice * (1 - l_discount))``), which the agent surfaces
keep to themselves unless the operator shows them; ``sutura describe``, the operator's view,
always shows it.
"""

from enum import StrEnum
from typing import assert_never


class Formulas(StrEnum):
    """``prompt.formulas``: hide each metric's formula from agents, or show it."""

    HIDDEN = "hidden"
    SHOWN = "shown"


def formulas_shown(setting: Formulas) -> bool:
    """Whether the operator shows agents each metric's formula.

    >>> formulas_shown(Formulas.HIDDEN), formulas_shown(Formulas.SHOWN)
    (False, True)
    """
    match setting:
        case Formulas.HIDDEN:
            return False
        case Formulas.SHOWN:
            return True
        case _:
            assert_never(setting)
