"""The answer cache over ``sutura mcp``'s own server (stdio's): a DuckDB source's cache without
``max_age_seconds`` keeps an answer for the process's lifetime, both halves as first sent."""

import datetime
from pathlib import Path

import anyio
import pytest

from sutura.boundary import service as service_module
from tests.transports.mcp.inprocess import (
    EXAMPLE_QUESTION,
    connected,
    structured_of,
    text_of,
    wiring,
)

pytestmark = pytest.mark.anyio

START = datetime.datetime(2025, 3, 1, 9, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize("enabled", [True, False], ids=["cached", "off"])
async def test_a_duckdb_answer_is_kept_for_the_process_lifetime_only_when_enabled(
    example_dir: Path, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    moment = [START]
    monkeypatch.setattr(service_module, "utc_now", lambda: moment[0])
    settings = {"SUTURA__SOURCES__MAIN__CACHE__ENABLED": "true"} if enabled else {}
    with anyio.fail_after(60):
        async with connected(wiring(example_dir, **settings)) as client:
            first = await client.call_tool("ask_metric", EXAMPLE_QUESTION)
            moment[0] = START + datetime.timedelta(days=30)
            again = await client.call_tool("ask_metric", EXAMPLE_QUESTION)
    assert structured_of(first)["provenance"]["computed_at"] == "2025-03-01T09:00:00.000Z"
    assert text_of(first).endswith("\ncomputed at: 2025-03-01T09:00:00.000Z")
    if enabled:
        assert (text_of(again), structured_of(again)) == (text_of(first), structured_of(first))
    else:
        assert text_of(again).endswith("\ncomputed at: 2025-03-31T09:00:00.000Z")
        assert structured_of(again)["rows"] == structured_of(first)["rows"]
