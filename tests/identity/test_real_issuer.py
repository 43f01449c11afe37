"""Tokens issued by a real authorization server (oidc-provider, started here, its JWKS over
HTTP) open exactly what their scopes and groups say over sutura's HTTP surface."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import httpx
import pytest

from tests.identity.issuer_process import running_issuer
from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import RESOURCE
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    """The running authorization server's issuer URL."""
    with running_issuer(RESOURCE) as url:
        yield url


@pytest.fixture(scope="module")
async def http(
    issuer: str, tmp_path_factory: pytest.TempPathFactory, example_dir: Path
) -> AsyncIterator[httpx.AsyncClient]:
    """sutura, verifying that server's tokens against its JWKS, fetched over HTTP."""
    config = write_multi_user(
        tmp_path_factory.mktemp("real-issuer"),
        example_dir,
        None,
        issuer=issuer,
        jwks_url=f"{issuer}/jwks",
    )
    async with assembled(config) as started, client(started.app) as http:
        yield http


async def _token(issuer: str, agent: str, scope: str) -> dict[str, str]:
    form = {
        "grant_type": "client_credentials",
        "client_id": agent,
        "client_secret": f"{agent}-secret",
        "scope": scope,
        "resource": RESOURCE,
    }
    with anyio.fail_after(30):
        async with httpx.AsyncClient(timeout=10) as http:
            issued = await http.post(f"{issuer}/token", data=form)
    assert issued.status_code == 200, issued.text
    return {"Authorization": f"Bearer {issued.json()['access_token']}"}


ASK = "sutura:catalog.read sutura:metrics.ask"


async def test_the_issuers_tokens_show_each_agent_its_own_catalog(
    issuer: str, http: httpx.AsyncClient
) -> None:
    finance = await http.get("/v1/catalog", headers=await _token(issuer, "finance-agent", ASK))
    staff = await http.get("/v1/catalog", headers=await _token(issuer, "staff-agent", ASK))
    assert finance.status_code == staff.status_code == 200
    finance_names = {m["name"] for m in finance.json()["metrics"]}
    staff_names = {m["name"] for m in staff.json()["metrics"]}
    assert finance_names - staff_names == {"return_rate"}


async def test_a_hidden_metric_is_unknown_to_the_agent_outside_its_audience(
    issuer: str, http: httpx.AsyncClient
) -> None:
    question = {**EXAMPLE_QUESTION, "metrics": ["return_rate"]}
    staff = await http.post(
        "/v1/query", json=question, headers=await _token(issuer, "staff-agent", ASK)
    )
    finance = await _token(issuer, "finance-agent", ASK)
    answered = await http.post("/v1/query", json=question, headers=finance)
    assert staff.status_code == 404 and staff.json()["reason"]["code"] == "metric_unknown"
    assert answered.status_code == 200, answered.text


async def test_a_scope_the_agent_did_not_ask_for_is_refused_naming_it(
    issuer: str, http: httpx.AsyncClient
) -> None:
    headers = await _token(issuer, "finance-agent", "sutura:catalog.read")
    refused = await http.post("/v1/query", json=EXAMPLE_QUESTION, headers=headers)
    assert refused.status_code == 403
    assert "sutura:metrics.ask" in refused.json()["detail"]
    assert (await http.get("/v1/catalog", headers=headers)).status_code == 200


async def test_a_tampered_token_of_the_real_issuer_is_refused(
    issuer: str, http: httpx.AsyncClient
) -> None:
    headers = await _token(issuer, "finance-agent", ASK)
    tampered = {"Authorization": headers["Authorization"][:-4] + "AAAA"}
    assert (await http.get("/v1/catalog", headers=tampered)).status_code == 401
