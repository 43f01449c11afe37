"""The routes over a deployment started from a settings document, in process."""

from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from sutura.core.nouns.refusal import RefusalCode
from tests.refusals import expect_refusal
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    refusal_of,
    shared_client,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: its tests share one deployment, which none changes."""
    return "asyncio"


@pytest.fixture(scope="module")
async def http(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the app assembled from one deployment (token set, prose default)."""
    async with shared_client(tmp_path_factory) as http:
        yield http


async def _post(http: httpx.AsyncClient, body: object, **headers: str) -> httpx.Response:
    with anyio.fail_after(10):
        return await http.post("/v1/query", json=body, headers={**AUTH, **headers})


async def test_health_answers_without_a_token(http: httpx.AsyncClient) -> None:
    with anyio.fail_after(10):
        response = await http.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


async def test_a_question_is_answered_with_its_provenance(http: httpx.AsyncClient) -> None:
    response = await _post(http, QUESTION)
    assert response.status_code == 200
    body = response.json()
    assert body["outcome"] == "answer"
    assert body["columns"] == ["period", "label", "units"]
    provenance = body["provenance"]
    assert provenance["definition_version"] == "http-1"
    assert [d["metric"] for d in provenance["metric_digests"]] == ["units"]
    assert provenance["executed_as"] == [{"source": "main", "posture": "shared-service-user"}]
    assert response.headers["content-type"] == "application/json"


async def test_a_refusal_is_sent_at_its_own_status_as_an_outcome(
    http: httpx.AsyncClient,
) -> None:
    response = await _post(http, {**QUESTION, "metrics": ["no_such_metric"]})
    assert response.status_code == 404
    body = response.json()
    assert body["outcome"] == "refusal"
    assert set(body["reason"]) == {"code", "status", "detail"}
    assert body["reason"]["status"] == 404
    expect_refusal(refusal_of(response), RefusalCode.METRIC_UNKNOWN)


async def test_a_grain_the_metric_does_not_list_is_refused_at_422(
    http: httpx.AsyncClient,
) -> None:
    response = await _post(http, {**QUESTION, "grain": "month"})
    assert response.status_code == 422
    expect_refusal(refusal_of(response), RefusalCode.GRAIN_NOT_SUPPORTED)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**QUESTION, "grain": "CANARY-grain-0x51"}, "$.grain"),
        ({**QUESTION, "metrics": "CANARY-metrics-0x51"}, "$.metrics"),
        ({**QUESTION, "range": {"start": "CANARY-date-0x51", "end": "2025-01-01"}}, "$.range"),
        ({**QUESTION, "sql": "CANARY-sql-0x51"}, "$"),
        ({"grain": "year", "range": {"start": "2024-01-01", "end": "2025-01-01"}}, "$.metrics"),
        ({**QUESTION, "range": {"start": "2025-01-01", "end": "2024-01-01"}}, "$.range"),
    ],
)
async def test_a_malformed_question_is_not_a_question_naming_the_field_never_the_value(
    http: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    response = await _post(http, body)
    assert response.status_code == 400
    failure = response.json()
    assert failure["code"] == "not_a_question"
    assert failure["status"] == 400
    assert field in failure["detail"]
    assert "CANARY" not in response.text


@pytest.mark.parametrize("content", [b"", b"not json", b"[]", b'"text"', b"{", b"\xff\xfe"])
async def test_a_body_that_is_not_a_json_question_is_not_a_question(
    http: httpx.AsyncClient, content: bytes
) -> None:
    with anyio.fail_after(10):
        response = await http.post("/v1/query", content=content, headers=AUTH)
    assert response.status_code == 400
    assert response.json()["code"] == "not_a_question"


async def test_the_raw_tool_is_tool_not_enabled_while_it_is_off(http: httpx.AsyncClient) -> None:
    with anyio.fail_after(10):
        response = await http.post("/v1/sql/run", json={"statement": "SELECT 1"}, headers=AUTH)
    assert response.status_code == 403
    assert response.json()["code"] == "tool_not_enabled"
    assert set(response.json()) == {"code", "status", "detail"}


@pytest.mark.parametrize(
    ("method", "path", "status", "code"),
    [
        ("GET", "/no/such/route", 404, "not_found"),
        ("GET", "/v1/no-such-route", 404, "not_found"),
        ("GET", "/docs/no-such-page", 404, "not_found"),
        ("DELETE", "/v1/query", 405, "method_not_allowed"),
        ("GET", "/v1/query", 405, "method_not_allowed"),
        ("POST", "/health", 405, "method_not_allowed"),
    ],
)
async def test_litestar_s_own_errors_are_sent_in_the_closed_channel(
    http: httpx.AsyncClient, method: str, path: str, status: int, code: str
) -> None:
    with anyio.fail_after(10):
        response = await http.request(method, path, headers=AUTH)
    assert response.status_code == status
    assert response.json() == {"code": code, "status": status, "detail": response.json()["detail"]}
    if status == 405:
        assert "allow" in response.headers


async def test_an_invalid_content_length_is_a_bad_request_without_echo(
    http: httpx.AsyncClient,
) -> None:
    headers = {**AUTH, "content-length": "CANARY"}
    with anyio.fail_after(10):
        response = await http.post("/v1/query", content=b"{}", headers=headers)
    assert response.status_code == 400
    assert response.json()["code"] in {"bad_request", "not_a_question"}
    assert "CANARY" not in response.text


async def test_the_docs_page_and_the_document_need_no_token(http: httpx.AsyncClient) -> None:
    with anyio.fail_after(10):
        docs = await http.get("/docs")
        document = await http.get("/openapi.json")
    assert docs.status_code == 200
    assert docs.headers["content-type"].startswith("text/html")
    assert docs.headers["content-security-policy"] == "default-src 'none'"
    assert "<script" not in docs.text
    assert "/v1/query" in docs.text
    assert document.status_code == 200
    assert document.json()["openapi"].startswith("3.1")
