"""Outcomes: an answer with provenance, or a refusal. Both are answers to the caller.

These frozen Structs are the structured half's wire shapes; the text half renders the same
values (see ``render_text``).
"""

from collections.abc import Sequence

import msgspec

from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.refusal import Refusal


class MetricDigest(Frozen, frozen=True):
    """One metric's own digest."""

    metric: str
    digest: str


class ExecutedAs(Frozen, frozen=True):
    """Which source answered, and whose identity read the data there."""

    source: str
    posture: str


class Provenance(Frozen, frozen=True, omit_defaults=True):
    """What an answer was computed from.

    ``ranges`` is there only when the ranges read are not the range asked, as ISO 8601
    intervals ``start/end`` (end excluded): the answer's range (widened to whole periods of
    the grain), then the prior range ``compare`` compared it with, or the whole range a
    trailing window read. ``range_asked`` is there only when widening made the answer's
    range another than the one asked (``range.last`` counted from the day asked).

    ``computed_at`` is when the rows were read from the source (UTC, ISO 8601, milliseconds,
    ``Z``): an answer served from the cache keeps the instant it was first computed."""

    definition_version: str
    definition_digest: str
    metric_digests: list[MetricDigest]
    time_zone: str
    executed_as: list[ExecutedAs]
    ranges: list[str] = msgspec.field(default_factory=list)
    computed_at: str = ""
    range_asked: str = ""


class Answer(Frozen, tag="answer", tag_field="outcome", frozen=True):
    """A certified answer: text cells (``None`` is SQL NULL) and provenance.

    ``rows`` is a sequence of rows, each a sequence of cells: a decoded answer's are lists;
    an answer a service made reads them from its structured half
    (:class:`~sutura.core.nouns.rows.WrittenRows`), which holds each cell once."""

    columns: list[str]
    rows: Sequence[Sequence[str | None]]
    provenance: Provenance


class Refused(Frozen, tag="refusal", tag_field="outcome", frozen=True):
    """A refusal outcome."""

    reason: Refusal


Outcome = Answer | Refused
