"""Refusals: the closed set of typed answers that decline a question.

A refusal is an answer too. Its ``detail`` is a fixed sentence per code that names a remedy
and never echoes a caller's value.

>>> refusal(RefusalCode.METRIC_UNKNOWN).status
404
"""

from enum import StrEnum
from typing import assert_never

from sutura.core.nouns.frozen import Frozen


class RefusalCode(StrEnum):
    """Every reason the certified surface declines to answer."""

    METRIC_UNKNOWN = "metric_unknown"
    METRICS_NOT_COMBINABLE = "metrics_not_combinable"
    GRAIN_NOT_SUPPORTED = "grain_not_supported"
    DUPLICATE_DIMENSION = "duplicate_dimension"
    TOO_MANY_DIMENSIONS = "too_many_dimensions"
    TIME_RANGE_TOO_LONG = "time_range_too_long"
    RESOURCES_EXHAUSTED = "resources_exhausted"
    DEADLINE_EXCEEDED = "deadline_exceeded"
    DENOMINATOR_ZERO = "denominator_zero"
    DIMENSION_NOT_PERMITTED = "dimension_not_permitted"
    DIMENSION_VALUE_NOT_ALLOWED = "dimension_value_not_allowed"
    SOURCE_REFUSED = "source_refused"
    RESULT_TOO_LARGE = "result_too_large"
    SOURCE_UNAVAILABLE = "source_unavailable"
    VALUE_NOT_REPRESENTABLE = "value_not_representable"
    WINDOW_NOT_ADDITIVE = "window_not_additive"
    VALUE_TOO_LONG = "value_too_long"


class Refusal(Frozen, frozen=True):
    """A typed refusal: its code, the HTTP status it maps to and a fixed detail sentence."""

    code: RefusalCode
    status: int
    detail: str


def status_of(code: RefusalCode) -> int:
    """The HTTP status of a refusal code."""
    match code:
        case RefusalCode.METRIC_UNKNOWN:
            return 404
        case (
            RefusalCode.METRICS_NOT_COMBINABLE
            | RefusalCode.GRAIN_NOT_SUPPORTED
            | RefusalCode.DUPLICATE_DIMENSION
            | RefusalCode.TOO_MANY_DIMENSIONS
            | RefusalCode.TIME_RANGE_TOO_LONG
            | RefusalCode.RESOURCES_EXHAUSTED
            | RefusalCode.DEADLINE_EXCEEDED
            | RefusalCode.DENOMINATOR_ZERO
            | RefusalCode.VALUE_NOT_REPRESENTABLE
            | RefusalCode.WINDOW_NOT_ADDITIVE
        ):
            return 422
        case (
            RefusalCode.DIMENSION_NOT_PERMITTED
            | RefusalCode.DIMENSION_VALUE_NOT_ALLOWED
            | RefusalCode.SOURCE_REFUSED
        ):
            return 403
        case RefusalCode.RESULT_TOO_LARGE | RefusalCode.VALUE_TOO_LONG:
            return 413
        case RefusalCode.SOURCE_UNAVAILABLE:
            return 503
        case _:
            assert_never(code)


DETAILS: dict[RefusalCode, str] = {
    RefusalCode.METRIC_UNKNOWN: (
        "A requested metric is not in the catalog; read the catalog and use a listed metric name."
    ),
    RefusalCode.METRICS_NOT_COMBINABLE: (
        "The requested metrics do not share a model and time column; ask for them one at a time."
    ),
    RefusalCode.GRAIN_NOT_SUPPORTED: (
        "The requested grain is not listed for this metric; "
        "use one of the grains the catalog lists."
    ),
    RefusalCode.DUPLICATE_DIMENSION: (
        "A dimension is named more than once; name each dimension at most once."
    ),
    RefusalCode.TOO_MANY_DIMENSIONS: (
        "The question names more dimensions than the limit allows; group by fewer dimensions."
    ),
    RefusalCode.TIME_RANGE_TOO_LONG: (
        "The question reads a longer period than the limit allows (its range, with a"
        " comparison's prior range or the periods a trailing window reaches back to);"
        " ask for a shorter period."
    ),
    RefusalCode.RESOURCES_EXHAUSTED: (
        "The data system needed more memory than its operator allows one question; a shorter"
        " period, a filter or fewer dimensions may fit, and if this question should, the"
        " operator's memory bound for the source may be too low."
    ),
    RefusalCode.DEADLINE_EXCEEDED: (
        "The question took longer than the deadline allows and was cancelled; "
        "ask for a coarser grain, fewer dimensions or a shorter period."
    ),
    RefusalCode.DENOMINATOR_ZERO: (
        "The ratio's denominator is zero in at least one row and this metric is defined to refuse "
        "such rows; ask for a coarser grain, a longer period or fewer dimensions."
    ),
    RefusalCode.DIMENSION_NOT_PERMITTED: (
        "A requested dimension is not listed for this metric; use a dimension the catalog lists."
    ),
    RefusalCode.DIMENSION_VALUE_NOT_ALLOWED: (
        "A filter value is not among the dimension's allowed values; use a value the catalog lists."
    ),
    RefusalCode.SOURCE_REFUSED: (
        "The data system refused the query; the operator has been told, and retrying will not help."
    ),
    RefusalCode.RESULT_TOO_LARGE: (
        "The answer has more rows than the limit allows and is refused rather than cut; "
        "ask for a coarser grain, fewer dimensions, a filter or top."
    ),
    RefusalCode.SOURCE_UNAVAILABLE: ("The data system could not be reached; try again later."),
    RefusalCode.VALUE_NOT_REPRESENTABLE: (
        "The answer holds a value that strict UTF-8 text cannot carry; it is refused whole "
        "rather than altered. The operator should correct the data."
    ),
    RefusalCode.WINDOW_NOT_ADDITIVE: (
        "A running or trailing window adds up periods, which is exact only for sums and counts "
        "that add up over time (not a ratio, nor a balance taken in each period); ask without "
        "window, or for a sum or count metric."
    ),
    RefusalCode.VALUE_TOO_LONG: (
        "A value of the dimension is longer than one reply of values may carry (64 KiB) and is"
        " refused rather than cut; search for text that leaves it out, or skip it by asking from"
        " an offset one further."
    ),
}


def refusal(code: RefusalCode) -> Refusal:
    """The refusal for ``code`` with its status and fixed detail sentence."""
    return Refusal(code=code, status=status_of(code), detail=DETAILS[code])
