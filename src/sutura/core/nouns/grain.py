"""Grains: the closed vocabulary of period lengths, finest first.

Its own module because the question (``core/question``) and the catalog both read it, and the
catalog's knowledge holds questions: the catalog model imports the question, never the reverse.
"""

from enum import StrEnum


class Grain(StrEnum):
    """A period length, finest first."""

    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    QUARTER = "quarter"
    YEAR = "year"


GRAIN_ORDER: tuple[Grain, ...] = tuple(Grain)
