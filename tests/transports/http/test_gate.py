"""DNS rebinding and cross-site requests: a ``Host`` that is not this server is 403
``host_not_allowed``; a body that is not declared JSON is 415 ``unsupported_media_type``."""

import json
from pathlib import Path

import anyio
import httpx
import pytest

from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    assembled,
    client,
    write_deployment,
)

pytestmark = pytest.mark.anyio

OWN_NAMES = ("localhost:8765", "[::1]:1", "127.0.0.1:8765", "LOCALHOST")
ROUTES = [("GET", "/health"), ("GET", "/v1/catalog"), ("POST", "/v1/query")]


async def _send(http: httpx.AsyncClient, method: str, path: str, **headers: str) -> httpx.Response:
    body = json.dumps(QUESTION).encode() if method == "POST" else None
    with anyio.fail_after(10):
        return await http.request(method, path, content=body, headers=headers)


async def test_a_tokenless_loopback_server_answers_only_its_own_names(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, token=None)
    async with assembled(config) as started, client(started.app) as http:
        for method, path in ROUTES:
            rebound = await _send(http, method, path, host="attacker.example:8765")
            without_port = await _send(http, method, path, host="attacker.example")
            own = [await _send(http, method, path, host=h) for h in OWN_NAMES]
            for refused in (rebound, without_port):
                assert refused.status_code == 403, path
                assert refused.json()["code"] == "host_not_allowed"
                assert refused.headers["cache-control"] == "private, no-store"
                assert "units" not in refused.text
            assert [r.status_code for r in own] == [200] * len(OWN_NAMES), path


async def test_allowed_hosts_replaces_the_loopback_names(tmp_path: Path) -> None:
    settings = "server:\n  allowed_hosts: ['*.example.org', sutura.internal]\n"
    config = write_deployment(tmp_path, settings=settings)
    async with assembled(config) as started, client(started.app) as http:
        loopback = await _send(http, "GET", "/v1/catalog", host="localhost", **AUTH)
        named = await _send(http, "GET", "/v1/catalog", host="sutura.internal:443", **AUTH)
        under = await _send(http, "GET", "/v1/catalog", host="API.example.org", **AUTH)
        apex = await _send(http, "GET", "/v1/catalog", host="example.org", **AUTH)
    assert (loopback.status_code, apex.status_code) == (403, 403)
    assert (named.status_code, under.status_code) == (200, 200)


async def test_a_server_bound_elsewhere_with_a_token_answers_any_host(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    async with assembled(config, host="0.0.0.0") as started, client(started.app) as http:
        response = await _send(http, "GET", "/v1/catalog", host="sutura.example.org", **AUTH)
    assert response.status_code == 200


NOT_JSON = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    None,
    "application/jsonx",
]
BODIES = {"/v1/query": QUESTION, "/v1/sql/run": {"statement": "SELECT 1"}}


async def test_a_body_not_sent_as_json_is_unsupported_media_type(
    tmp_path: Path,
) -> None:
    settings = "tools:\n  run_sql:\n    enabled: true\n    source: main\n"
    config = write_deployment(tmp_path, token=None, settings=settings)
    async with assembled(config) as started, client(started.app) as http:
        del http.headers["content-type"]
        for path, body in BODIES.items():
            content = json.dumps(body)
            for content_type in NOT_JSON:
                headers = {} if content_type is None else {"content-type": content_type}
                with anyio.fail_after(10):
                    refused = await http.post(path, content=content, headers=headers)
                assert refused.status_code == 415, (path, content_type)
                assert refused.json()["code"] == "unsupported_media_type"
            json_type = {"content-type": "application/json; charset=utf-8"}
            with anyio.fail_after(10):
                typed = await http.post(path, content=content, headers=json_type)
            assert typed.status_code == 200, path


async def test_the_token_is_checked_before_the_media_type(tmp_path: Path) -> None:
    config = write_deployment(tmp_path)
    async with assembled(config) as started, client(started.app) as http:
        with anyio.fail_after(10):
            anonymous = await http.post("/v1/query", content=b"x", headers={"content-type": "x/y"})
            bearer = await http.post(
                "/v1/query", content=b"x", headers={**AUTH, "content-type": "x/y"}
            )
    assert anonymous.status_code == 401
    assert bearer.status_code == 415
