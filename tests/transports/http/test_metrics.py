"""``GET /metrics``: Prometheus text behind its own token; calls, stages, admission, sources,
anchors and the definitions; never a caller, a request id or a cell in a label."""

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from litestar import Litestar
from prometheus_client.parser import text_string_to_metric_families

from sutura.boundary.cpus import available_cpus
from sutura.core.text.untrusted import CELLS
from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment
from tests.transports.mcp.remote import http_of, mcp_client

pytestmark = pytest.mark.anyio

METRICS_TOKEN = "metrics-token-0123456789"
SCRAPE = {"Authorization": f"Bearer {METRICS_TOKEN}"}


@pytest.fixture(scope="module")
async def app(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Litestar]:
    settings = f"  metrics_token: {METRICS_TOKEN}\n"
    config = write_deployment(tmp_path_factory.mktemp("metrics"))
    with (config / "base.yaml").open("a", encoding="utf-8") as base:
        base.write(settings)  # under the security section write_deployment ends with
    async with assembled(config) as started:
        yield started.app


@pytest.fixture(scope="module")
async def http(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with client(app) as http:
        yield http


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


async def _scrape(http: httpx.AsyncClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = await http.get("/metrics", headers=SCRAPE)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return _samples(response.text)


def _calls(capability: str, outcome: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    return ("sutura_calls_total", (("capability", capability), ("outcome", outcome)))


async def test_metrics_count_every_call_by_capability_and_outcome_on_v1_and_mcp(
    app: Litestar, http: httpx.AsyncClient
) -> None:
    before = await _scrape(http)
    await http.post("/v1/query", json=QUESTION, headers=AUTH)
    await http.post("/v1/query", json={**QUESTION, "metrics": ["no_such"]}, headers=AUTH)
    await http.get("/v1/catalog", headers=AUTH)
    with anyio.fail_after(30):
        async with http_of(app, AUTH) as over, mcp_client(over) as mcp:
            await mcp.call_tool("ask_metric", QUESTION)
    after = await _scrape(http)

    def grew(key: tuple[str, tuple[tuple[str, str], ...]]) -> float:
        return after.get(key, 0) - before.get(key, 0)

    assert grew(_calls("ask_metric", "answer")) == 2
    assert grew(_calls("ask_metric", "metric_unknown")) == 1
    assert grew(_calls("describe_catalog", "answer")) == 1
    duration = ("sutura_call_duration_seconds_count", (("capability", "ask_metric"),))
    assert grew(duration) == 3
    for stage, count in (("resolve", 3), ("compile", 2), ("run", 2), ("render", 3)):
        assert grew(("sutura_stage_duration_seconds_count", (("stage", stage),))) == count
    assert after[("sutura_admission_in_flight", ())] == 0
    assert after[("sutura_admission_limit", ())] == 8
    assert ("sutura_admission_shed_total", ()) in after
    assert ("sutura_rate_limited_total", ()) in after
    assert after[("sutura_source_queries_in_flight", (("source", "main"),))] == 0
    assert after[("sutura_source_statements_limit", (("source", "main"),))] == available_cpus()
    assert after[("sutura_anchors_checked", ())] == 0


async def test_the_definitions_are_an_info_metric_and_no_label_carries_a_caller_or_cell(
    http: httpx.AsyncClient,
) -> None:
    await http.post("/v1/query", json=QUESTION, headers={**AUTH, "X-Request-Id": "rid-in-label"})
    text = (await http.get("/metrics", headers=SCRAPE)).text
    answer = (await http.post("/v1/query", json=QUESTION, headers=AUTH)).json()
    digest = answer["provenance"]["definition_digest"]
    info = [
        s
        for f in text_string_to_metric_families(text)
        for s in f.samples
        if s.name == "sutura_definitions_info"
    ]
    assert [s.labels for s in info] == [{"version": "http-1", "digest": digest}]
    labels: set[Any] = {
        value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        for value in sample.labels.values()
    }
    assert not labels & {"static-token", "rid-in-label", *(case.value for case in CELLS)}


async def test_metrics_need_their_own_token(http: httpx.AsyncClient) -> None:
    assert (await http.get("/metrics")).status_code == 401
    assert (await http.get("/metrics", headers=AUTH)).status_code == 401
    assert (await http.get("/v1/catalog", headers=SCRAPE)).status_code == 401


async def test_without_a_metrics_token_there_is_no_metrics_route(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    with anyio.fail_after(30):
        async with assembled(config) as started, client(started.app) as http:
            response = await http.get("/metrics", headers=AUTH)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
