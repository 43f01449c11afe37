"""Ask certified questions from a script, keep the structured halves, render them as text halves.

Usage: ``python batch_example.py CONFIG_DIR OUTPUT_DIR`` (``CONFIG_DIR`` as written by
``sutura example CONFIG_DIR``). It writes ``outcomes.jsonl`` (one structured half a line) and
``outcomes.txt`` (the text halves, as ``sutura render outcomes.jsonl`` would write them), then
checks that every text half decodes back to the very outcome it was rendered from.
"""

import sys
from pathlib import Path

from returns.pipeline import is_successful

from sutura import api

QUESTIONS: list[dict[str, object]] = [
    # Revenue per quarter and region.
    {
        "metrics": ["revenue"],
        "grain": "quarter",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        "dimensions": ["region"],
    },
    # The three best months for web orders.
    {
        "metrics": ["order_count"],
        "grain": "month",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        "filters": [{"op": "eq", "dimension": "channel", "value": "web"}],
        "top": {"n": 3, "by": "order_count"},
    },
    # Refused: the catalog lists no such dimension. A refusal is an outcome too.
    {
        "metrics": ["revenue"],
        "grain": "year",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        "dimensions": ["salary"],
    },
]


def ask_all(config_dir: Path) -> list[api.Outcome]:
    """One outcome per question; stops the script on a settings or catalog problem."""
    questions = [api.question(question).unwrap() for question in QUESTIONS]
    asked = api.ask(questions, config_dir)
    if not is_successful(asked):
        sys.exit("\n".join(asked.failure()))
    outcomes = []
    for outcome in asked.unwrap():
        if isinstance(outcome, api.QuestionError | api.Failed):
            sys.exit(outcome.sentence())
        outcomes.append(outcome)
    return outcomes


def main(config_dir: Path, output_dir: Path) -> None:
    """Ask, write JSON Lines, render them to text halves, and check the round trip."""
    outcomes = ask_all(config_dir)
    structured = output_dir / "outcomes.jsonl"
    structured.write_bytes(b"".join(api.render_structured(o) + b"\n" for o in outcomes))

    text = output_dir / "outcomes.txt"
    with structured.open("rb") as source, text.open("wb") as sink:
        summary = api.render_stream(
            source, sink, on_invalid=lambda error: print(error.sentence(), file=sys.stderr)
        )
    print(summary.sentence())

    records = api.split_rendered(text.read_text(encoding="utf-8")).unwrap()
    for record, outcome in zip(records, outcomes, strict=True):
        assert api.decode_text(record.text).unwrap() == outcome
        first_line = record.text.split("\n", 1)[0]
        print(f"record {record.number}: {first_line}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
