"""Rate limits per caller on ``sutura serve``: ``429 rate_limited`` with ``Retry-After`` once a
caller's bucket is empty, on ``/v1`` and ``/mcp`` alike; counted on ``/metrics``."""

from pathlib import Path

import anyio
import pytest

from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment
from tests.transports.mcp.remote import LEGACY, LIST_TOOLS, http_of

pytestmark = pytest.mark.anyio

METRICS_TOKEN = "metrics-token-0123456789"
LIMITED = "server:\n  rate_limit:\n    per_minute: 1\n    burst: 2\n"


async def test_a_caller_past_its_burst_is_429_rate_limited_with_retry_after(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, settings=LIMITED)
    scrape = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    with anyio.fail_after(30):
        async with (
            assembled(config, SUTURA__SECURITY__METRICS_TOKEN=METRICS_TOKEN) as started,
            client(started.app) as http,
        ):
            first = await http.post("/v1/query", json=QUESTION, headers=AUTH)
            second = await http.get("/v1/catalog", headers=AUTH)
            third = await http.post("/v1/query", json=QUESTION, headers=AUTH)
            async with http_of(started.app, {**AUTH, **LEGACY}) as over:
                mcp = await over.post("/mcp", json=LIST_TOOLS)
            health = await http.get("/health")
            anonymous = await http.get("/v1/catalog")
            metrics = await http.get("/metrics", headers=scrape)
    assert (first.status_code, second.status_code) == (200, 200)
    for refused in (third, mcp):
        assert refused.status_code == 429
        assert refused.json()["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) >= 1
    assert health.status_code == 200
    assert anonymous.status_code == 401  # authentication first: no bucket for a stranger
    assert "sutura_rate_limited_total 2.0" in metrics.text


async def test_without_a_rate_limit_no_caller_is_limited(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    with anyio.fail_after(30):
        async with assembled(config) as started, client(started.app) as http:
            codes = {(await http.get("/v1/catalog", headers=AUTH)).status_code for _ in range(30)}
    assert codes == {200}
