"""The answer cache, through HTTP and MCP (over the same app), on DuckDB and PostgreSQL: a
second identical question is a hit with the same bytes and the original ``computed_at``; a
caller with another view does not share it; it expires at ``max_age_seconds`` on the injected
clock; it is off unless a source enables it; hits and misses are on ``/metrics``."""

import datetime
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from sutura.boundary import service as service_module
from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment
from tests.transports.http.inbound_deployment import multi_user_on, write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION
from tests.transports.mcp.remote import http_of, mcp_client

pytestmark = pytest.mark.anyio

PAIR = KeyPair("cache-key")
METRICS_TOKEN = "metrics-token-0123456789"
START = datetime.datetime(2025, 3, 1, 9, 0, tzinfo=datetime.UTC)
CACHED = {
    "SUTURA__SOURCES__MAIN__CACHE__ENABLED": "true",
    "SUTURA__SOURCES__MAIN__CACHE__MAX_AGE_SECONDS": "60",
    "SUTURA__SECURITY__METRICS_TOKEN": METRICS_TOKEN,
}


class Clock:
    """The service's wall clock, moved by the tests."""

    def __init__(self) -> None:
        self.moment = START

    def now(self) -> datetime.datetime:
        return self.moment

    def advance(self, seconds: float) -> str:
        """Move on; the instant as ``computed_at`` writes it."""
        self.moment += datetime.timedelta(seconds=seconds)
        return instant(self.moment)


def instant(moment: datetime.datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture
def clock() -> Iterator[Clock]:
    ticking = Clock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service_module, "utc_now", ticking.now)
        yield ticking


@pytest.fixture(scope="module", params=["duckdb", "postgres"])
async def http(
    request: pytest.FixtureRequest, example_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[httpx.AsyncClient]:
    """A multi-user deployment whose source caches answers for 60 s, on each engine."""
    root = tmp_path_factory.mktemp(f"cache-{request.param}")
    with multi_user_on(request.param, root, example_dir, PAIR, request) as (config, secrets):
        async with assembled(config, **secrets, **CACHED) as started, client(started.app) as http:
            http.app = started.app  # type: ignore[attr-defined]
            yield http


def _as(groups: list[str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(PAIR, claims(groups=groups))}"}


def _question(year: int) -> dict[str, Any]:
    """The example question over one year (each test its own, so none sees another's entry)."""
    return {**EXAMPLE_QUESTION, "range": {"start": f"{year}-01-01", "end": f"{year + 1}-01-01"}}


async def _ask(http: httpx.AsyncClient, question: dict[str, Any], groups: list[str]) -> Any:
    with anyio.fail_after(30):
        response = await http.post("/v1/query", json=question, headers=_as(groups))
    assert response.status_code == 200, response.text
    return response


async def _counts(http: httpx.AsyncClient) -> tuple[float, float]:
    """The source ``main``'s cache hits and misses, scraped."""
    with anyio.fail_after(30):
        response = await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    samples = {
        sample.name: sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.labels.get("source") == "main"
    }
    return samples["sutura_answer_cache_hits_total"], samples["sutura_answer_cache_misses_total"]


async def test_a_second_identical_question_is_a_hit_with_the_same_rows_and_computed_at(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    question = _question(2024)
    hits, misses = await _counts(http)
    first = await _ask(http, question, ["staff"])
    assert first.json()["provenance"]["computed_at"] == instant(START)
    clock.advance(30)
    again = await _ask(http, {**question}, ["staff"])  # the same question, sent anew
    assert again.content == first.content
    async with http_of(http.app, _as(["staff"])) as over, mcp_client(over) as mcp:  # type: ignore[attr-defined]
        with anyio.fail_after(30):
            result = await mcp.call_tool("ask_metric", question)
    assert result.structured_content == first.json()
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.endswith(f"\ncomputed at: {instant(START)}")
    assert await _counts(http) == (hits + 2, misses + 1)


async def test_a_caller_with_another_view_does_not_share_an_answer(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    question = _question(2023)
    staff = await _ask(http, question, ["staff"])
    later = clock.advance(5)
    finance = await _ask(http, question, ["finance-team"])
    assert finance.json()["provenance"]["computed_at"] == later
    assert finance.json()["rows"] == staff.json()["rows"]
    clock.advance(5)
    assert (await _ask(http, question, ["finance-team"])).content == finance.content


async def test_an_answer_older_than_max_age_is_computed_again(
    http: httpx.AsyncClient, clock: Clock
) -> None:
    question = _question(2022)
    first = await _ask(http, question, ["staff"])
    clock.advance(60)
    assert (await _ask(http, question, ["staff"])).content == first.content  # 60 s: still kept
    later = clock.advance(0.001)
    again = await _ask(http, question, ["staff"])
    assert again.json()["provenance"]["computed_at"] == later
    assert again.json()["rows"] == first.json()["rows"]


async def test_a_refusal_is_never_kept(http: httpx.AsyncClient, clock: Clock) -> None:
    hits, misses = await _counts(http)
    hidden = {**_question(2024), "metrics": ["return_rate"]}  # finance only: staff is refused
    for _ in range(2):
        with anyio.fail_after(30):
            response = await http.post("/v1/query", json=hidden, headers=_as(["staff"]))
        assert response.status_code == 404
    assert await _counts(http) == (hits, misses)  # not the cache's to decide


async def test_the_cache_is_off_unless_a_source_enables_it(tmp_path: Path, clock: Clock) -> None:
    config = write_deployment(tmp_path)
    async with assembled(config) as started, client(started.app) as plain:
        first = await plain.post("/v1/query", json=QUESTION, headers=AUTH)
        later = clock.advance(1)
        again = await plain.post("/v1/query", json=QUESTION, headers=AUTH)
    assert first.json()["provenance"]["computed_at"] == instant(START)
    assert again.json()["provenance"]["computed_at"] == later
    assert again.json()["rows"] == first.json()["rows"]


async def test_the_least_recently_used_answer_goes_first_to_keep_max_bytes(
    example_dir: Path, tmp_path: Path, clock: Clock
) -> None:
    config = write_multi_user(tmp_path / "config", example_dir, PAIR)
    first, second = _question(2024), _question(2023)
    async with assembled(config, **CACHED) as started, client(started.app) as http:
        await _ask(http, first, ["staff"])
        size = int(await _held(http))  # one reply, both halves
    bounded = {**CACHED, "SUTURA__SOURCES__MAIN__CACHE__MAX_BYTES": str(size * 3 // 2)}
    async with assembled(config, **bounded) as started, client(started.app) as http:
        kept = await _ask(http, first, ["staff"])
        await _ask(http, second, ["staff"])  # the two do not fit: the first goes
        assert 0 < await _held(http) <= size * 3 // 2
        later = clock.advance(1)
        again = await _ask(http, first, ["staff"])
        assert again.json()["provenance"]["computed_at"] == later != instant(START)
        assert again.json()["rows"] == kept.json()["rows"]
        assert (await _ask(http, first, ["staff"])).content == again.content  # kept again


async def _held(http: httpx.AsyncClient) -> float:
    """Bytes the source ``main``'s cache holds, scraped."""
    with anyio.fail_after(30):
        response = await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    return next(
        sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == "sutura_answer_cache_bytes" and sample.labels.get("source") == "main"
    )
