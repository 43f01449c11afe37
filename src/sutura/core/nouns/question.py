"""The question: the only input of the certified surface, decoded strictly.

There is no SQL, table, predicate or limit field, ever. Unknown fields are refused. A malformed
question is reported as a :class:`QuestionError` naming the field (a JSON path) and never
echoing the value the caller sent.
"""

import datetime
import re
from enum import StrEnum
from typing import Annotated

import msgspec
import msgspec.inspect as mi
from returns.result import Failure, Result, Success

from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.grain import Grain


class Last(Frozen, frozen=True):
    """The last ``count`` whole units, ending before the current one unless ``include_current``."""

    count: Annotated[
        int, msgspec.Meta(ge=1, le=100_000, description="How many units, 1 to 100000.")
    ]
    unit: Annotated[
        Grain, msgspec.Meta(description="day, week (ISO, from Monday), month, quarter or year.")
    ]
    include_current: Annotated[
        bool,
        msgspec.Meta(
            description="true: the current, unfinished unit is the last one counted"
            " (default false)."
        ),
    ] = False


class Range(Frozen, frozen=True):
    """Either ``{start, end}`` (ISO dates, half-open) or ``{last: {...}}``; exactly one form."""

    start: Annotated[
        datetime.date | None, msgspec.Meta(description="First day, included (ISO date).")
    ] = None
    end: Annotated[
        datetime.date | None,
        msgspec.Meta(description="Day after the last day, excluded (ISO date)."),
    ] = None
    last: Annotated[
        Last | None, msgspec.Meta(description="Instead of start and end: the last whole units.")
    ] = None


FilterValue = Annotated[
    str | int | bool,
    msgspec.Meta(description='Of the dimension\'s type; a decimal as text ("0.05").'),
]
"""A value a filter compares with, typed by its dimension: text; a number (an integer, or a
decimal written as text such as ``"0.05"``, so it stays exact); a date ``YYYY-MM-DD``; a
timestamp ``YYYY-MM-DD HH:MM[:SS]``; or ``true``/``false``."""

_DIMENSION = "A dimension of the metrics."
_VALUES = "in keeps their rows, not_in drops them."


class FilterEq(Frozen, tag="eq", tag_field="op", frozen=True):
    """``dimension = value``."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    value: FilterValue


class FilterIn(Frozen, tag="in", tag_field="op", frozen=True):
    """``dimension IN values``."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    values: Annotated[
        list[FilterValue],
        msgspec.Meta(min_length=1, max_length=1000, description=_VALUES),
    ]


class FilterNotIn(Frozen, tag="not_in", tag_field="op", frozen=True):
    """``dimension NOT IN values``."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    values: Annotated[
        list[FilterValue],
        msgspec.Meta(min_length=1, max_length=1000, description=_VALUES),
    ]


class FilterLt(Frozen, tag="lt", tag_field="op", frozen=True):
    """``dimension < value`` (numbers, dates, timestamps)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    value: FilterValue


class FilterLe(Frozen, tag="le", tag_field="op", frozen=True):
    """``dimension <= value`` (numbers, dates, timestamps)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    value: FilterValue


class FilterGt(Frozen, tag="gt", tag_field="op", frozen=True):
    """``dimension > value`` (numbers, dates, timestamps)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    value: FilterValue


class FilterGe(Frozen, tag="ge", tag_field="op", frozen=True):
    """``dimension >= value`` (numbers, dates, timestamps)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    value: FilterValue


class FilterBetween(Frozen, tag="between", tag_field="op", frozen=True):
    """``low <= dimension <= high`` (numbers, dates, timestamps; both bounds included)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]
    low: FilterValue
    high: FilterValue


class FilterIsNull(Frozen, tag="is_null", tag_field="op", frozen=True):
    """``dimension IS NULL`` (any dimension)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]


class FilterIsNotNull(Frozen, tag="is_not_null", tag_field="op", frozen=True):
    """``dimension IS NOT NULL`` (any dimension)."""

    dimension: Annotated[str, msgspec.Meta(description=_DIMENSION)]


Filter = (
    FilterEq
    | FilterIn
    | FilterNotIn
    | FilterLt
    | FilterLe
    | FilterGt
    | FilterGe
    | FilterBetween
    | FilterIsNull
    | FilterIsNotNull
)

_FILTER_OPS = "eq, in, not_in, lt, le, gt, ge, between, is_null, is_not_null"


class Direction(StrEnum):
    """Sort direction of ``top``."""

    ASC = "asc"
    DESC = "desc"


class Per(StrEnum):
    """What ``top`` ranks within: ``period`` keeps the top rows of each period."""

    PERIOD = "period"


class Top(Frozen, frozen=True):
    """Keep the ``n`` rows first by ``by`` (a requested metric, or ``period``)."""

    n: Annotated[int, msgspec.Meta(ge=1, description="Rows to keep, 1 to limits.max_rows.")]
    by: Annotated[str, msgspec.Meta(description="A requested metric, or period, to rank rows by.")]
    direction: Annotated[
        Direction, msgspec.Meta(description="desc (default): largest first; NULLs rank last.")
    ] = Direction.DESC
    per: Annotated[
        Per | None,
        msgspec.Meta(description="period: the top n of each period (default: of all rows)."),
    ] = None


class CompareTo(StrEnum):
    """Which earlier period each row is compared with."""

    PREVIOUS_PERIOD = "previous_period"
    PREVIOUS_YEAR = "previous_year"


class Compare(Frozen, frozen=True):
    """Add each metric's prior value, change and relative change to every row."""

    to: Annotated[
        CompareTo,
        msgspec.Meta(
            description="previous_period: the period before; previous_year: a year before"
            " (52 weeks at grain week)."
        ),
    ]


class Window(Frozen, frozen=True):
    """A window over periods, for sums and counts: exactly one of running or trailing."""

    running: Annotated[
        bool, msgspec.Meta(description="true: the total from the range start (default false).")
    ] = False
    trailing: (
        Annotated[
            int,
            msgspec.Meta(
                description="N >= 1: the total of the last N periods, ending with each row's"
                " (default: none).",
            ),
        ]
        | None
    ) = None


class Question(Frozen, frozen=True):
    """A typed question about one or more certified metrics."""

    metrics: Annotated[
        list[str],
        msgspec.Meta(
            min_length=1,
            max_length=16,
            description="Metric names (1 to 16) sharing a model and time column.",
        ),
    ]
    range: Annotated[
        Range,
        msgspec.Meta(
            description="{start, end} or {last}; widened to whole periods of the grain, if any."
        ),
    ]
    grain: Annotated[
        Grain | None,
        msgspec.Meta(
            description="Each row's period, a grain every metric lists (default: none: one row"
            " per group over exactly the range)."
        ),
    ] = None
    dimensions: Annotated[
        list[str],
        msgspec.Meta(
            max_length=16,
            description="Dimensions to group by, in order (default: none); at most"
            " limits.max_dimensions.",
        ),
    ] = msgspec.field(default_factory=list)
    filters: Annotated[
        list[Filter],
        msgspec.Meta(
            description="All applied. op eq, lt, le, gt, ge: value; in, not_in: values; between:"
            " low, high; is_null, is_not_null (default: none)."
        ),
    ] = msgspec.field(default_factory=list)
    top: Annotated[
        Top | None, msgspec.Meta(description="Keep the first n rows (default: all rows).")
    ] = None
    compare: Annotated[
        Compare | None,
        msgspec.Meta(
            description="Add m.prior, m.change and m.relative_change per metric (default: none)."
        ),
    ] = None
    window: Annotated[
        Window | None,
        msgspec.Meta(
            description="Add m.running or m.trailing per metric, sums and counts only"
            " (default: none)."
        ),
    ] = None
    fill: Annotated[
        bool,
        msgspec.Meta(
            description="true: every period gets a row, 0 for sums and counts, NULL otherwise"
            " (default false)."
        ),
    ] = False


class QuestionError(Frozen, frozen=True):
    """A malformed question: the JSON path of the field and what is wrong with it."""

    field: str
    problem: str

    def sentence(self) -> str:
        """One line naming the field and the problem, never the value."""
        return f"malformed question: {self.field}: {self.problem}"


_DECIMAL_AS_TEXT = 'a number with a fraction is written as text ("0.05"), so it stays exact'
_PATH = re.compile(r" - at `(?P<path>[^`]*)`$")
_SAFE_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
_KNOWN_PROBLEMS: tuple[tuple[re.Pattern[str], str | None], ...] = (
    (re.compile(r"^Object contains unknown field `(?P<name>.*)`$", re.S), None),
    (re.compile(r"^Object missing required field `(?P<name>[a-z_]+)`$"), "missing required field"),
    (re.compile(r"^Expected `bool \| int \| str`, got `float`$"), _DECIMAL_AS_TEXT),
    (re.compile(r"^Expected `[a-z| ]+`(, got `[a-z]+`)?$"), ""),
    (re.compile(r"^Expected `[a-z ]+` (of length )?[<>]=? ?\d+$"), ""),
    (re.compile(r"^Invalid enum value"), "expected one of"),
    (re.compile(r"^Invalid value"), "invalid value"),
    (re.compile(r"^Invalid RFC3339 encoded date"), "expected an ISO date (YYYY-MM-DD)"),
)


def _describe(message: str) -> QuestionError:
    """Turn a msgspec validation message into a field and a problem, dropping any value."""
    found = _PATH.search(message)
    path = found.group("path") if found else "$"
    text = message[: found.start()] if found else message
    for pattern, problem in _KNOWN_PROBLEMS:
        matched = pattern.match(text)
        if matched is None:
            continue
        name = matched.groupdict().get("name")
        if problem is None:
            safe = name is not None and _SAFE_NAME.fullmatch(name) is not None
            return QuestionError(
                field=f"{path}.{name}" if safe else path,
                problem="unknown field" if safe else "an unknown field is present",
            )
        if problem == "":
            return QuestionError(field=path, problem=text[0].lower() + text[1:])
        if name is not None and problem == "missing required field":
            return QuestionError(field=f"{path}.{name}", problem=problem)
        if problem == "expected one of":
            return QuestionError(field=path, problem=_allowed(path))
        if problem == "invalid value" and path.startswith("$.filters[") and path.endswith(".op"):
            return QuestionError(field=path, problem=f"expected one of {_FILTER_OPS}")
        return QuestionError(field=path, problem=problem)
    return QuestionError(field=path, problem="invalid value")


def _allowed(path: str) -> str:
    """``expected one of …`` with the values of the closed vocabulary at ``path``.

    >>> _allowed("$.range.last.unit"), _allowed("$.top.direction")
    ('expected one of day, week, month, quarter, year', 'expected one of asc, desc')
    """
    info: mi.Type = mi.type_info(Question)
    for part in re.findall(r"\.([A-Za-z_]+)", path):
        structs = [t for t in _members(info) if isinstance(t, mi.StructType)]
        fields = {f.encode_name: f.type for s in structs for f in s.fields}
        if part not in fields:
            return "value is not one of the allowed values"
        info = fields[part]
    enums = [t for t in _members(info) if isinstance(t, mi.EnumType)]
    if not enums:
        return "value is not one of the allowed values"
    return "expected one of " + ", ".join(str(m.value) for m in enums[0].cls)


def _members(info: mi.Type) -> list[mi.Type]:
    """``info``, or the members of a union (an optional field is one); descriptions and lists
    unwrapped."""
    while isinstance(info, mi.Metadata):
        info = info.type
    found = list(info.types) if isinstance(info, mi.UnionType) else [info]
    found = [t.type if isinstance(t, mi.Metadata) else t for t in found]
    return [t.item_type if isinstance(t, mi.ListType) else t for t in found]


_JSON_DECODER = msgspec.json.Decoder(Question)


def decode_question_json(data: bytes | str) -> Result[Question, QuestionError]:
    """Decode a question from JSON text.

    >>> decode_question_json(b'{"metrics": ["m"], "grain": "fortnight", "range": {}}').failure()
    QuestionError(field='$.grain', problem='expected one of day, week, month, quarter, year')
    """
    try:
        return Success(_JSON_DECODER.decode(data))
    except msgspec.ValidationError as err:
        return Failure(_describe(str(err)))
    except msgspec.DecodeError:
        return Failure(QuestionError(field="$", problem="not a JSON object"))
    except UnicodeEncodeError:  # JSON handed over as a str holding a lone surrogate
        return Failure(QuestionError(field="$", problem="a lone surrogate is not text"))


def convert_question(arguments: object) -> Result[Question, QuestionError]:
    """Build a question from already-parsed JSON values (an MCP tool's arguments)."""
    try:
        return Success(msgspec.convert(arguments, Question))
    except msgspec.ValidationError as err:
        return Failure(_describe(str(err)))


def convert_written_question(values: object) -> Result[Question, QuestionError]:
    """Build a question from a catalog document's front matter, where every leaf is text.

    The same type and the same error description as :func:`convert_question`; only text
    leaves may stand for numbers and booleans (``n: 5``, ``include_current: true``).

    >>> convert_written_question({"metrics": ["m"], "grain": "year", "range": {},
    ...     "top": {"n": "5", "by": "m"}}).unwrap().top.n
    5
    """
    try:
        return Success(msgspec.convert(values, Question, strict=False))
    except msgspec.ValidationError as err:
        return Failure(_describe(str(err)))


def range_form(rng: Range) -> Result[tuple[datetime.date, datetime.date] | Last, QuestionError]:
    """Which of the two range forms ``rng`` is, refusing mixtures and inverted periods."""
    match (rng.start, rng.end, rng.last):
        case (datetime.date() as start, datetime.date() as end, None):
            if start >= end:
                return Failure(QuestionError(field="$.range", problem="start must be before end"))
            return Success((start, end))
        case (None, None, Last() as last):
            return Success(last)
        case _:
            return Failure(
                QuestionError(
                    field="$.range", problem="give either start and end, or last, and nothing else"
                )
            )
