r"""The shipped decoder of text halves: a rendered answer or refusal back into its value.

It accepts exactly what ``render_text`` writes and reports anything else as a
:class:`TextError` naming the 1-based line and the problem; it never guesses.

>>> text = "a\tb\n\\e\t\\N\n\\. rows: 1\ndefinitions: v1 (digest ab)\n  m: cd\ntime zone: UTC"
>>> answer = decode_answer(text).unwrap()
>>> answer.columns, answer.rows, answer.provenance.metric_digests[0].metric
(['a', 'b'], [['', None]], 'm')
>>> decode_answer("a\n\\. rows: 2\ndefinitions: v1 (digest ab)").failure()
TextError(line=2, problem='the row-count line says 2 rows, the table has 0')
"""

import re
from collections.abc import Iterable, Sequence
from itertools import takewhile
from typing import Final, TypeVar

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.nouns.answer import Answer, ExecutedAs, MetricDigest, Outcome, Provenance, Refused
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.refusal import Refusal, RefusalCode, status_of
from sutura.core.text.escape import unescape_cell
from sutura.core.text.render import (
    COMPUTED_PREFIX,
    DEFINITIONS_PREFIX,
    DIGEST_SEPARATOR,
    METRIC_PREFIX,
    METRIC_SEPARATOR,
    RANGE_ASKED_PREFIX,
    RANGE_PREFIX,
    SOURCE_PREFIX,
    SOURCE_SEPARATOR,
    TIME_ZONE_PREFIX,
)


class TextError(Frozen, frozen=True):
    """A text half that is not in the grammar: the 1-based line and what is wrong there."""

    line: int
    problem: str

    def sentence(self) -> str:
        """One line naming the line number and the problem.

        >>> TextError(line=3, problem="unknown escape sequence").sentence()
        'line 3: unknown escape sequence'
        """
        return f"line {self.line}: {self.problem}"


_REFUSAL: Final = re.compile(r"refused \((?P<code>[a-z_]+)\): (?P<detail>.*)", re.DOTALL)
_COUNT: Final = re.compile(r"\\\. rows: (?P<count>0|[1-9][0-9]{0,17})")
_CODES: Final = {code.value: code for code in RefusalCode}

_SHAPES: Final = {
    DEFINITIONS_PREFIX: "definitions: <version> (digest <digest>)",
    METRIC_PREFIX: "a metric's digest line, indented two spaces: <metric>: <digest>",
    TIME_ZONE_PREFIX: "time zone: <IANA zone name>",
    RANGE_ASKED_PREFIX: "range asked: <start>/<end>",
    RANGE_PREFIX: "range: <start>/<end>",
    SOURCE_PREFIX: "read from <source> as: <posture>",
    COMPUTED_PREFIX: "computed at: <UTC instant>",
}

Table = tuple[list[str], list[list[str | None]]]
T = TypeVar("T")


def _collect(results: Iterable[Result[T, TextError]]) -> Result[list[T], TextError]:
    """The values of ``results`` in order, or the first failure (later ones are not computed)."""
    values: list[T] = []
    for result in results:
        if not is_successful(result):
            return Failure(result.failure())
        values.append(result.unwrap())
    return Success(values)


def _fail(line: int, problem: str) -> Failure[TextError]:
    return Failure(TextError(line=line, problem=problem))


def _cell(token: str, line: int) -> Result[str | None, TextError]:
    return unescape_cell(token).alt(
        lambda error: TextError(line=line, problem=f"character {error.offset + 1}: {error.problem}")
    )


def _name(token: str, line: int) -> Result[str, TextError]:
    """A label or a name: a cell that may not be NULL."""
    return _cell(token, line).bind(
        lambda value: _fail(line, "a name cannot be NULL") if value is None else Success(value)
    )


def _row(line: str, number: int, width: int) -> Result[list[str | None], TextError]:
    tokens = line.split("\t")
    if len(tokens) != width:
        return _fail(number, f"{len(tokens)} cells where the header has {width}")
    return _collect(_cell(token, number) for token in tokens)


def _table(lines: Sequence[str]) -> Result[Table, TextError]:
    """The header (line 1) and the rows under it: every line above the row-count line."""
    columns = _collect(_name(token, 1) for token in lines[0].split("\t"))
    return columns.bind(
        lambda labels: _collect(
            _row(line, number, len(labels)) for number, line in enumerate(lines[1:], start=2)
        ).map(lambda rows: (labels, rows))
    )


def _row_count_at(lines: Sequence[str]) -> Result[int, TextError]:
    """The index of the one row-count line, checked against the rows above it."""
    marks = [index for index, line in enumerate(lines) if line.startswith("\\.")]
    if not marks:
        return _fail(len(lines), "no row-count line (\\. rows: <n>)")
    if len(marks) > 1:
        return _fail(marks[1] + 1, "a second line starting \\.")
    found = _COUNT.fullmatch(lines[marks[0]])
    if found is None or marks[0] == 0:
        return _fail(marks[0] + 1, "expected \\. rows: <n>, after a header line")
    if int(found.group("count")) != marks[0] - 1:
        stated, actual = found.group("count"), marks[0] - 1
        return _fail(marks[0] + 1, f"the row-count line says {stated} rows, the table has {actual}")
    return Success(marks[0])


def _split_right(
    line: str, prefix: str, separator: str, number: int
) -> Result[tuple[str, str], TextError]:
    """``prefix<left><separator><right>``; the right field holds no space, so split at the last."""
    left, found, right = line.removeprefix(prefix).rpartition(separator)
    if not line.startswith(prefix) or not found or " " in right:
        return _fail(number, f"expected {_SHAPES[prefix]}")
    return _name(left, number).bind(
        lambda name: _name(right, number).map(lambda value: (name, value))
    )


def _definitions(line: str, number: int) -> Result[tuple[str, str], TextError]:
    if not line.endswith(")"):
        return _fail(number, f"expected {_SHAPES[DEFINITIONS_PREFIX]}")
    return _split_right(line[:-1], DEFINITIONS_PREFIX, DIGEST_SEPARATOR, number)


def _provenance(lines: Sequence[str], first: int) -> Result[Provenance, TextError]:
    """The provenance lines; ``first`` is the 1-based number of the definitions line."""
    if not lines:
        return _fail(first, "no definitions line after the row-count line")
    metrics = list(takewhile(lambda line: line.startswith(METRIC_PREFIX), lines[1:]))
    metric_at = first + 1
    zone_at = metric_at + len(metrics)
    after_zone = lines[1 + len(metrics) + 1 :]
    asked = int(bool(after_zone) and after_zone[0].startswith(RANGE_ASKED_PREFIX))
    ranges = list(takewhile(lambda line: line.startswith(RANGE_PREFIX), after_zone[asked:]))
    # The range-asked line (at most one, first), then the range lines: each an interval.
    intervals = [(after_zone[0], zone_at + 1, RANGE_ASKED_PREFIX)] if asked else []
    intervals += [(line, zone_at + 1 + asked + i, RANGE_PREFIX) for i, line in enumerate(ranges)]
    sources = after_zone[asked + len(ranges) :]
    source_at = zone_at + 1 + len(intervals)
    computed_line = sources[-1] if sources and sources[-1].startswith(COMPUTED_PREFIX) else None
    sources = sources if computed_line is None else sources[:-1]
    computed_at = source_at + len(sources)
    return _definitions(lines[0], first).bind(
        lambda definitions: _collect(
            _split_right(line, METRIC_PREFIX, METRIC_SEPARATOR, metric_at + i)
            for i, line in enumerate(metrics)
        ).bind(
            lambda digests: _time_zone(lines[1 + len(metrics) :], zone_at).bind(
                lambda zone: _collect(
                    _range(line, number, prefix) for line, number, prefix in intervals
                ).bind(
                    lambda read: (
                        _collect(
                            _split_right(line, SOURCE_PREFIX, SOURCE_SEPARATOR, source_at + i)
                            for i, line in enumerate(sources)
                        )
                        .bind(
                            lambda executed: _computed(computed_line, computed_at).map(
                                lambda computed: (executed, computed)
                            )
                        )
                        .map(
                            lambda read_at: Provenance(
                                definition_version=definitions[0],
                                definition_digest=definitions[1],
                                metric_digests=[
                                    MetricDigest(metric=m, digest=d) for m, d in digests
                                ],
                                time_zone=zone,
                                executed_as=[
                                    ExecutedAs(source=s, posture=p) for s, p in read_at[0]
                                ],
                                ranges=read[asked:],
                                computed_at=read_at[1],
                                range_asked=read[0] if asked else "",
                            )
                        )
                    )
                )
            )
        )
    )


def _computed(line: str | None, number: int) -> Result[str, TextError]:
    """The computed-at line's instant (it holds no space), or "" when there is none."""
    if line is None:
        return Success("")
    instant = line.removeprefix(COMPUTED_PREFIX)
    if " " in instant or not instant:
        return _fail(number, f"expected {_SHAPES[COMPUTED_PREFIX]}")
    return _name(instant, number)


def _range(line: str, number: int, prefix: str) -> Result[str, TextError]:
    """A range line's interval (it holds no space), after ``prefix``."""
    interval = line.removeprefix(prefix)
    if " " in interval:
        return _fail(number, f"expected {_SHAPES[prefix]}")
    return _name(interval, number)


def _time_zone(lines: Sequence[str], number: int) -> Result[str, TextError]:
    """The time zone line (the first line after the metric digests)."""
    if not lines or not lines[0].startswith(TIME_ZONE_PREFIX) or " " in lines[0][11:]:
        return _fail(number, f"expected {_SHAPES[TIME_ZONE_PREFIX]}")
    return _name(lines[0].removeprefix(TIME_ZONE_PREFIX), number)


def decode_answer(text: str) -> Result[Answer, TextError]:
    """Decode the text half of an answer: columns, rows (``None`` for NULL) and provenance."""
    lines = text.split("\n")
    return _row_count_at(lines).bind(
        lambda at: _table(lines[:at]).bind(
            lambda table: _provenance(lines[at + 1 :], at + 2).map(
                lambda provenance: Answer(columns=table[0], rows=table[1], provenance=provenance)
            )
        )
    )


def decode_refusal(text: str) -> Result[Refused, TextError]:
    r"""Decode ``refused (<code>): <detail>``; the status follows from the code.

    >>> decode_refusal("refused (metric_unknown): Read the catalog.").unwrap().reason.status
    404
    """
    found = _REFUSAL.fullmatch(text)
    code = _CODES.get(found.group("code")) if found else None
    if found is None or code is None or "\n" in text:
        return _fail(1, "expected refused (<code>): <detail> with a known code")
    return _name(found.group("detail"), 1).map(
        lambda detail: Refused(reason=Refusal(code=code, status=status_of(code), detail=detail))
    )


def decode_outcome(text: str) -> Result[Outcome, TextError]:
    """Decode either text half: one line is a refusal, more lines an answer."""
    if "\n" in text:
        return decode_answer(text).map(_as_outcome)
    return decode_refusal(text).map(_as_outcome)


def _as_outcome(outcome: Outcome) -> Outcome:
    return outcome
