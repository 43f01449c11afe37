"""Bearer authentication on ``/v1/*`` and the rule for serving without a token."""

import hmac
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import httpx
import pytest
from returns.pipeline import is_successful

from sutura.boundary.loading import load
from sutura.core.settings import Environment
from sutura.transports.http.auth import bind_problems
from sutura.transports.http.serve import started_app
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    TOKEN,
    assembled,
    client,
    environ,
    shared_client,
    write_deployment,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    """A client of one deployment with a token."""
    async with shared_client(tmp_path_factory) as http:
        yield http


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong-token-0123456789abcdef"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
    ],
    ids=["none", "wrong", "longer", "shorter", "basic", "no scheme", "no token", "empty token"],
)
@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/catalog"), ("POST", "/v1/query"), ("POST", "/v1/sql/run")],
)
async def test_every_v1_route_refuses_a_request_without_the_token(
    shared: httpx.AsyncClient, headers: dict[str, str], method: str, path: str
) -> None:
    with anyio.fail_after(10):
        response = await shared.request(method, path, json=QUESTION, headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert body["code"] == "unauthorized"
    assert body["status"] == 401
    assert set(body) == {"code", "status", "detail"}
    assert response.headers["www-authenticate"] == "Bearer"
    assert TOKEN not in response.text


async def test_the_scheme_is_case_insensitive_and_the_token_is_not(
    shared: httpx.AsyncClient,
) -> None:
    with anyio.fail_after(10):
        lower = await shared.get("/v1/catalog", headers={"Authorization": f"bearer {TOKEN}"})
        upper = await shared.get(
            "/v1/catalog", headers={"Authorization": f"Bearer {TOKEN.upper()}"}
        )
    assert lower.status_code == 200
    assert upper.status_code == 401


async def test_the_token_is_compared_in_constant_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    async with assembled(write_deployment(tmp_path)) as started, client(started.app) as http:
        with anyio.fail_after(10):
            assert (await http.get("/v1/catalog", headers=AUTH)).status_code == 200
    assert compared == [(TOKEN.encode(), TOKEN.encode())]


async def test_a_development_deployment_on_loopback_may_serve_without_a_token(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, token=None)
    async with assembled(config, host="127.0.0.1") as started, client(started.app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION)
    assert response.status_code == 200


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7", "example.org"])
async def test_serving_beyond_loopback_without_a_token_is_refused(
    tmp_path: Path, host: str
) -> None:
    config = write_deployment(tmp_path, token=None)
    assert await _refused(environ(config), host) == [
        f"server.host: binding {host} (not a loopback address) requires security.access_token"
    ]


@pytest.mark.parametrize("environment", ["production", "test"])
async def test_a_deployment_outside_development_without_a_token_is_refused(
    tmp_path: Path, environment: str
) -> None:
    config = write_deployment(tmp_path, token=None)
    problems = await _refused(environ(config, SUTURA_ENVIRONMENT=environment), "127.0.0.1")
    assert any("security.access_token" in problem for problem in problems)


async def _refused(environ: dict[str, str], host: str) -> list[str]:
    """Why ``sutura serve`` does not start on ``host`` (the test fails if it starts)."""
    loaded = load(environ)
    if not is_successful(loaded):
        return loaded.failure()
    with anyio.fail_after(20):
        async with started_app(loaded.unwrap(), mcp=None, host=host) as started:
            assert not is_successful(started)
            return started.failure()


@pytest.mark.parametrize(
    ("environment", "host", "token", "refused"),
    [
        (Environment.DEVELOPMENT, "127.0.0.1", None, False),
        (Environment.DEVELOPMENT, "127.8.9.10", None, False),
        (Environment.DEVELOPMENT, "::1", None, False),
        (Environment.DEVELOPMENT, "localhost", None, False),
        (Environment.DEVELOPMENT, "0.0.0.0", None, True),
        (Environment.DEVELOPMENT, "", None, True),
        (Environment.DEVELOPMENT, "0.0.0.0", TOKEN, False),
        (Environment.TEST, "127.0.0.1", None, True),
        (Environment.PRODUCTION, "127.0.0.1", None, True),
        (Environment.PRODUCTION, "0.0.0.0", TOKEN, False),
    ],
)
def test_a_token_is_required_unless_a_development_deployment_binds_loopback(
    environment: Environment, host: str, token: str | None, refused: bool
) -> None:
    assert bool(bind_problems(environment, host, token=token)) is refused
