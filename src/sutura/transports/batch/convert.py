r"""One record into its rendering, or a typed :class:`RecordError`; nothing is guessed or replaced.

A record renders when it decodes as a structured answer or refusal (the codec's strict
decoder), a refusal's ``status`` is its code's, and **both** halves can be built from it. The
text target writes the text half framed by ``framing``; the JSON target writes the canonical
structured half (the codec's own encoding) as one line. Invalid UTF-8 is ``not_utf8`` naming
the byte, never a replacement character; a lone surrogate escape (``"\\ud800"``, which no
UTF-8 text can hold) is ``not_representable``, as the codec refuses such values everywhere.

>>> refused = b'{"outcome": "refusal", "reason": {"code": "metric_unknown", "status": 404,'
>>> refused += b' "detail": "Read the catalog."}}'
>>> convert(RawRecord(4, refused), Target.TEXT)
b'\\. record 4\nrefused (metric_unknown): Read the catalog.\n'
>>> convert(RawRecord(4, refused), Target.JSON)[:31]
b'{"outcome":"refusal","reason":{'
>>> convert(RawRecord(5, b'{"outcome": "answer", "columns": [1]}'), Target.JSON).sentence()
'record 5: not_an_outcome: malformed structured value: $.columns[0]: Expected `str`, got `int`'
>>> convert(RawRecord(6, b'"caf\xe9"'), Target.TEXT).sentence()
'record 6: not_utf8: byte 5 is not part of a UTF-8 character'
"""

import json
from enum import StrEnum
from typing import Final, assert_never

from returns.pipeline import is_successful

from sutura.core.nouns.answer import Outcome, Refused
from sutura.core.nouns.refusal import status_of
from sutura.core.tool.codec import CodecError, decode_outcome, decoded_outcome_text, outcome_halves
from sutura.transports.batch.framing import frame
from sutura.transports.batch.problems import RecordError, RecordProblem
from sutura.transports.batch.records import RawRecord


class Target(StrEnum):
    """What ``sutura render`` writes: text halves, or validated canonical JSON Lines."""

    TEXT = "text"
    JSON = "json"


_NOT_JSON: Final = CodecError(path="$", problem="not valid JSON")
_SURROGATE: Final = "a string escapes a lone surrogate, which strict UTF-8 cannot carry"
_NOT_REPRESENTABLE: Final = (
    "the two halves cannot both carry this outcome faithfully (value_not_representable)"
)


def convert(record: RawRecord, target: Target) -> bytes | RecordError:
    """The bytes ``target`` writes for ``record``, or why it is invalid."""
    decoded = decode_outcome(record.data)
    if not is_successful(decoded):
        return _undecodable(record, decoded.failure())
    outcome = decoded.unwrap()
    if not _status_matches(outcome):
        problem = CodecError(path="$.reason.status", problem="not the status of the code")
        return RecordError(
            number=record.number, problem=RecordProblem.NOT_AN_OUTCOME, detail=problem.sentence()
        )
    match target:
        case Target.TEXT:
            # A decoded outcome's structured half always encodes (see ``decoded_outcome_text``).
            text = decoded_outcome_text(outcome)
            if is_successful(text):
                return frame(record.number, text.unwrap())
        case Target.JSON:
            halves = outcome_halves(outcome)
            if is_successful(halves):
                return halves.unwrap().structured + b"\n"
        case _:
            assert_never(target)
    return RecordError(
        number=record.number, problem=RecordProblem.NOT_REPRESENTABLE, detail=_NOT_REPRESENTABLE
    )


def _status_matches(outcome: Outcome) -> bool:
    """A refusal's status follows from its code; the text half carries only the code."""
    return not isinstance(outcome, Refused) or outcome.reason.status == status_of(
        outcome.reason.code
    )


def _undecodable(record: RawRecord, error: CodecError) -> RecordError:
    """A decoding failure as a record problem; bytes that are not UTF-8 are told apart first
    (the decoder may meet a wrong type before it reaches the bad bytes)."""
    try:
        record.data.decode("utf-8")
    except UnicodeDecodeError as bad:
        detail = f"byte {bad.start + 1} is not part of a UTF-8 character"
        return RecordError(number=record.number, problem=RecordProblem.NOT_UTF8, detail=detail)
    if error != _NOT_JSON:
        return RecordError(
            number=record.number, problem=RecordProblem.NOT_AN_OUTCOME, detail=error.sentence()
        )
    if _holds_lone_surrogate(record.data):
        return RecordError(
            number=record.number, problem=RecordProblem.NOT_REPRESENTABLE, detail=_SURROGATE
        )
    return RecordError(
        number=record.number, problem=RecordProblem.NOT_JSON, detail="not valid JSON"
    )


def _refuse_constant(name: str) -> object:
    raise ValueError(name)


def _holds_lone_surrogate(data: bytes) -> bool:
    """JSON the strict decoder refused but the standard library reads: a lone surrogate escape
    (``"\\ud800"``) is the one difference left once ``NaN`` and ``Infinity`` are refused too."""
    try:
        json.loads(data, parse_constant=_refuse_constant)
    except ValueError:
        return False
    return True
