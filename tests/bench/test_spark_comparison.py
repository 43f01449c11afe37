"""The Spark bench section's check that both engines gave the same answer.

Two engines' answers to one question differ by design in the source they were read from and
the moment they were computed; in nothing else. The section compares text halves without
those two lines, and only those.
"""

import msgspec
from bench.spark import comparable

from sutura.core.nouns.answer import ExecutedAs
from sutura.core.tool.codec import halves_of
from tests.core.untrusted_samples import answer


def _text(rows: list[list[str | None]], source: str, computed_at: str) -> str:
    base = answer(["period", "revenue"], rows)
    provenance = msgspec.structs.replace(
        base.provenance,
        executed_as=[ExecutedAs(source=source, posture="shared-service-user")],
        computed_at=computed_at,
    )
    return halves_of(msgspec.structs.replace(base, provenance=provenance)).text


def test_answers_differing_only_in_source_and_moment_compare_equal() -> None:
    rows: list[list[str | None]] = [["2024-01-01", "10.50"]]
    duckdb = _text(rows, "main", "2026-12-02T21:00:00.001Z")
    spark = _text(rows, "spark", "2026-12-02T21:00:03.512Z")
    assert duckdb != spark
    assert comparable(duckdb) == comparable(spark)


def test_answers_differing_in_a_cell_or_a_row_do_not() -> None:
    moment = "2026-12-02T21:00:00.001Z"
    one = _text([["2024-01-01", "10.50"]], "main", moment)
    assert comparable(one) != comparable(_text([["2024-01-01", "10.5"]], "main", moment))
    assert comparable(one) != comparable(
        _text([["2024-01-01", "10.50"], ["2024-02-01", None]], "main", moment)
    )
