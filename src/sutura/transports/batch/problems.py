"""Why one input record was not rendered: a closed set of problems, each with its record number.

>>> RecordError(number=7, problem=RecordProblem.NOT_JSON, detail="not valid JSON").sentence()
'record 7: not_json: not valid JSON'
"""

from enum import StrEnum

from sutura.core.nouns.frozen import Frozen


class RecordProblem(StrEnum):
    """Every reason a record is invalid."""

    NOT_UTF8 = "not_utf8"
    """The record's bytes are not strict UTF-8 (never replaced, never guessed)."""
    NOT_JSON = "not_json"
    """The record is UTF-8 but not one JSON value."""
    NOT_AN_OUTCOME = "not_an_outcome"
    """JSON, but not a structured answer or refusal (the detail names the JSON path)."""
    TOO_LONG = "too_long"
    """A line (or a whole JSON document) over the byte cap; it was skipped, not buffered."""
    NOT_REPRESENTABLE = "not_representable"
    """An outcome whose two halves cannot both be built (``value_not_representable``)."""


class RecordError(Frozen, frozen=True):
    """One invalid record: its 1-based number, the problem and a detail that echoes no value."""

    number: int
    problem: RecordProblem
    detail: str

    def sentence(self) -> str:
        """``record <n>: <problem>: <detail>`` on one line."""
        return f"record {self.number}: {self.problem.value}: {self.detail}"
