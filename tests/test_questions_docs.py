"""docs/questions.md is true: each worked question, asked of the example ``make run`` writes,
gives the rows the page shows (their first lines), or the refusal it quotes."""

import re
from pathlib import Path

import pytest

from sutura import api
from sutura.boundary.example import write_example
from sutura.core.codec import halves_of

PAGE = Path(__file__).resolve().parents[1] / "docs" / "questions.md"
_PAIR = re.compile(r"```json\n(.*?)```\n\n```text\n(.*?)```", re.S)
PAIRS = _PAIR.findall(PAGE.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example as ``make run`` writes it (its default number of orders)."""
    target = tmp_path_factory.mktemp("shop")
    write_example(target)
    return target


def test_the_page_shows_a_worked_question_for_each_feature() -> None:
    asked = " ".join(question for question, _ in PAIRS)
    for feature in ('"compare"', '"running"', '"trailing"', '"fill"', '"per"'):
        assert feature in asked


def test_each_worked_question_gives_the_lines_the_page_shows(shop: Path) -> None:
    questions = [api.question(text).unwrap() for text, _ in PAIRS]
    outcomes = api.ask(questions, shop).unwrap()
    for (_, shown), outcome in zip(PAIRS, outcomes, strict=True):
        assert isinstance(outcome, api.Answer | api.Refused), outcome
        lines = halves_of(outcome).text.split("\n")
        expected = shown.rstrip("\n").split("\n")
        assert lines[: len(expected)] == expected
