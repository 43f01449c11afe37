"""Generated questions get the same outcome from DuckDB and from PostgreSQL.

The pack (``questions.json``) holds the questions people ask, each with its expected outcome.
Here questions are drawn at random from the whole question language over the same catalog and
rows: one to three metrics (derived ones too), every grain, ranges that reach outside the data,
dimensions a metric may or may not have, filters on values that exist or not, compare, window,
fill and ``top``. Whatever one engine answers or refuses, the other must answer with the same
text half (but for the line naming the engine) or refuse for the same reason.
"""

import anyio
import pytest
from hypothesis import event, given

from tests.conformance.conftest import Served
from tests.conformance.generated import (
    ALL_DIMENSIONS,
    DERIVED,
    METRICS,
    drawn,
    expect_one_outcome,
    questions,
)


@pytest.mark.postgres
@pytest.mark.anyio
@drawn(200)
@given(question=questions())
async def test_a_generated_question_has_one_outcome_on_both_engines(
    served: Served, question: dict[str, object]
) -> None:
    with anyio.fail_after(60):
        on_duckdb = await expect_one_outcome(served.duckdb, served.postgres, question)
    event(type(on_duckdb).__name__)  # --hypothesis-show-statistics: how many answered


@pytest.mark.postgres
def test_the_questions_draw_on_every_metric_and_dimension_of_the_catalog(served: Served) -> None:
    catalog = served.duckdb.definitions().catalog
    derived = [d.name for d in catalog.derived]
    assert sorted(METRICS) == sorted([m.name for m in catalog.metrics] + derived)
    assert sorted(DERIVED) == sorted(derived)
    allowed = {d.name: d.values for m in catalog.metrics for d in m.dimensions}
    assert sorted(ALL_DIMENSIONS) == sorted(allowed)
    for name, values in allowed.items():  # each allowed value, and one not allowed
        assert set(values or ()) < set(ALL_DIMENSIONS[name]), name
