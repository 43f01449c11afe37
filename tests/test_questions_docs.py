"""docs/questions.md is true: each worked question, asked of the example ``make run`` writes,
gives the rows the page shows (their first lines), or the refusal it quotes."""

import re
from pathlib import Path

import pytest

from sutura import api
from sutura.boundary.example import write_example
from sutura.core.tool.codec import halves_of

PAGE = Path(__file__).resolve().parents[1] / "docs" / "questions.md"
_PAIR = re.compile(r"```json\n(.*?)```\n\n```text\n(.*?)```", re.S)
PAIRS = _PAIR.findall(PAGE.read_text(encoding="utf-8"))
YEAR = {"start": "2024-01-01", "end": "2025-01-01"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as ``make run`` writes it (its default number of orders)."""
    target = tmp_path_factory.mktemp("shop")
    write_example(target)
    return target


def test_the_page_shows_a_worked_question_for_each_feature() -> None:
    asked = " ".join(question for question, _ in PAIRS)
    for feature in ('"filters"', '"compare"', '"running"', '"trailing"', '"fill"', '"per"'):
        assert feature in asked


def test_each_worked_question_gives_the_lines_the_page_shows(shop: Path) -> None:
    questions = [api.question(text).unwrap() for text, _ in PAIRS]
    outcomes = api.ask(questions, shop).unwrap()
    for (_, shown), outcome in zip(PAIRS, outcomes, strict=True):
        assert isinstance(outcome, api.Answer | api.Refused), outcome
        lines = halves_of(outcome).text.split("\n")
        expected = shown.rstrip("\n").split("\n")
        assert lines[: len(expected)] == expected


@pytest.mark.parametrize(
    ("extra", "ranges"),
    [
        ({"compare": {"to": "previous_year"}}, ["2024-01-01/2025-01-01", "2023-01-01/2024-01-01"]),
        (
            {"compare": {"to": "previous_period"}},
            ["2024-01-01/2025-01-01", "2023-10-01/2024-10-01"],
        ),
        ({"window": {"trailing": 2}}, ["2024-01-01/2025-01-01", "2023-10-01/2025-01-01"]),
        ({"window": {"running": True}}, []),
        ({"fill": True}, []),
    ],
)
def test_provenance_states_every_range_an_answer_was_computed_from(
    shop: Path, extra: dict[str, object], ranges: list[str]
) -> None:
    asked = {"metrics": ["revenue"], "grain": "quarter", "range": YEAR, **extra}
    (outcome,) = api.ask([api.question(asked).unwrap()], shop).unwrap()
    assert isinstance(outcome, api.Answer)
    assert outcome.provenance.ranges == ranges
    trailer = halves_of(outcome).text.split("\n")
    assert [line for line in trailer if line.startswith("range: ")] == [
        f"range: {r}" for r in ranges
    ]
    assert (b'"ranges"' in halves_of(outcome).structured) is bool(ranges)


_SPRING: dict[str, object] = {"start": "2024-03-10", "end": "2024-04-20"}


@pytest.mark.parametrize(
    ("extra", "asked", "ranges"),
    [
        ({}, "", []),
        ({"grain": "month"}, "2024-03-10/2024-04-20", ["2024-03-01/2024-05-01"]),
        (
            {"grain": "month", "compare": {"to": "previous_year"}},
            "2024-03-10/2024-04-20",
            ["2024-03-01/2024-05-01", "2023-03-01/2023-05-01"],
        ),
        ({"grain": "day"}, "", []),
    ],
)
def test_both_halves_state_the_range_asked_and_read_wherever_they_differ(
    shop: Path, extra: dict[str, object], asked: str, ranges: list[str]
) -> None:
    question = {"metrics": ["revenue"], "range": _SPRING, **extra}
    (outcome,) = api.ask([api.question(question).unwrap()], shop).unwrap()
    assert isinstance(outcome, api.Answer)
    assert (outcome.provenance.range_asked, outcome.provenance.ranges) == (asked, ranges)
    halves = halves_of(outcome)
    lines = halves.text.split("\n")
    stated = [line for line in lines if line.startswith(("range asked: ", "range: "))]
    assert stated == [f"range asked: {asked}"] * bool(asked) + [f"range: {r}" for r in ranges]
    assert (b'"range_asked"' in halves.structured) is bool(asked)
    decoded = api.decode_text(halves.text).unwrap()
    assert isinstance(decoded, api.Answer) and decoded.provenance == outcome.provenance
