"""Resolved questions, kept: a question's resolution is a pure function of the pinned
definitions, the caller's view of them, the question and the day, so it is computed once.

An entry is keyed by all three that vary within one service (the definitions are pinned for
its lifetime): the caller's view (the set of audiences it sees, or every audience), the
question re-encoded canonically, and the day ``range.last`` counts back from. A caller never
reads an entry made for another view, and a question never reads another question's entry.
Refusals and malformations are kept as well as resolutions: they are as pure.

Bounded: at most :data:`MAX_ENTRIES` entries, the least recently used going first; a question
whose canonical form is longer than :data:`MAX_QUESTION_BYTES` is resolved every time, never
kept, so the keys hold at most a few megabytes.
"""

import datetime
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, NamedTuple, assert_never

import msgspec
from returns.result import Result

from sutura.core.nouns.question import Question, QuestionError
from sutura.core.nouns.refusal import Refusal
from sutura.core.question.resolve import Resolved
from sutura.core.tool.caller import Audiences, EveryAudience

MAX_ENTRIES: Final = 1024
MAX_QUESTION_BYTES: Final = 4096

Resolution = Result[Resolved, Refusal | QuestionError]


class ResolutionKey(NamedTuple):
    """What a resolution depends on within one service."""

    view: tuple[str, ...] | None
    question: bytes
    today: datetime.date


def view_key(audiences: Audiences) -> tuple[str, ...] | None:
    """The caller's view as a key: its audiences, sorted; None for every audience.

    >>> view_key(frozenset({"b", "a"})), view_key(EveryAudience.EVERY)
    (('a', 'b'), None)
    """
    match audiences:
        case EveryAudience.EVERY:
            return None
        case frozenset():
            return tuple(sorted(audiences))
        case _:
            assert_never(audiences)


class Resolutions:
    """One service's resolved questions, least recently used first out."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._max_entries = max_entries
        self._entries: OrderedDict[ResolutionKey, Resolution] = OrderedDict()

    def resolved(
        self,
        view: tuple[str, ...] | None,
        question: Question,
        today: datetime.date,
        resolve: Callable[[], Resolution],
    ) -> Resolution:
        """The resolution of ``question`` in ``view`` on ``today``: kept, or ``resolve()``."""
        encoded = msgspec.json.encode(question, order="deterministic")
        if len(encoded) > MAX_QUESTION_BYTES:
            return resolve()
        key = ResolutionKey(view, encoded, today)
        kept = self._entries.get(key)
        if kept is not None:
            self._entries.move_to_end(key)
            return kept
        resolution = resolve()
        self._entries[key] = resolution
        if len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
        return resolution

    def __len__(self) -> int:
        """How many resolutions are kept."""
        return len(self._entries)
