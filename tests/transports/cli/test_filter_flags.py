"""The filter flags of ``sutura query`` and ``sutura compile`` build the question's filters:
equalities grouped into ``in``, comparisons and ranges each their own, NULL tests by name."""

import pytest

from sutura.transports.cli.main import build_parser
from sutura.transports.cli.question_args import UsageError, question_arguments

BASE = ["query", "m", "--grain", "year", "--from", "2024-01-01", "--to", "2025-01-01"]


def _filters(*flags: str) -> object:
    args = build_parser("query").parse_args([*BASE, *flags])
    document = question_arguments(args)
    assert isinstance(document, dict)
    return document.get("filters")


def test_each_filter_flag_becomes_its_op() -> None:
    assert _filters(
        "--where", "region=east", "--where", "region=west", "--where-not", "channel=web",
        "--where", "quantity<24", "--where", "quantity>=1", "--where", "day<=2024-06-30",
        "--where", "weight>0.5", "--where-between", "discount", "0.05", "0.07",
        "--where-null", "segment", "--where-not-null", "carrier",
    ) == [
        {"op": "in", "dimension": "region", "values": ["east", "west"]},
        {"op": "not_in", "dimension": "channel", "values": ["web"]},
        {"op": "lt", "dimension": "quantity", "value": "24"},
        {"op": "ge", "dimension": "quantity", "value": "1"},
        {"op": "le", "dimension": "day", "value": "2024-06-30"},
        {"op": "gt", "dimension": "weight", "value": "0.5"},
        {"op": "between", "dimension": "discount", "low": "0.05", "high": "0.07"},
        {"op": "is_null", "dimension": "segment"},
        {"op": "is_not_null", "dimension": "carrier"},
    ]  # fmt: skip


def test_a_value_keeps_every_character_after_the_first_operator() -> None:
    assert _filters("--where", "note=a<b=c", "--where", "at>=2024-01-01 05:00") == [
        {"op": "in", "dimension": "note", "values": ["a<b=c"]},
        {"op": "ge", "dimension": "at", "value": "2024-01-01 05:00"},
    ]


@pytest.mark.parametrize("spec", ["region", ""])
def test_a_where_without_an_operator_is_a_usage_error(spec: str) -> None:
    with pytest.raises(UsageError, match="--where takes DIM=VALUE"):
        _filters("--where", spec)


def test_the_filter_flags_conflict_with_question() -> None:
    args = build_parser("query").parse_args(["query", "--question", "{}", "--where-null", "d"])
    with pytest.raises(UsageError, match="--where-null"):
        question_arguments(args)
