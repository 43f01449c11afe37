"""Operating ``sutura serve``: request ids on every response and log line, one audit record
per call of every capability (``/v1`` and ``/mcp``) in the configured JSON-lines sink."""

import io
import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from litestar import Litestar

from sutura.boundary.logs import JsonLines, RequestIdFilter
from sutura.core.text.untrusted import CELLS
from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment
from tests.transports.mcp.inprocess import structured_of
from tests.transports.mcp.remote import http_of, mcp_client

pytestmark = pytest.mark.anyio

AUDIT = "audit:\n  path: audit.jsonl\n"
FILTERED: dict[str, Any] = {
    **QUESTION,
    "filters": [{"op": "eq", "dimension": "label", "value": "value-never-audited"}],
}


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_deployment(tmp_path_factory.mktemp("operations"))


@pytest.fixture(scope="module")
async def app(config: Path) -> AsyncIterator[Litestar]:
    async with assembled(config) as started:
        yield started.app


@pytest.fixture(scope="module")
async def http(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    async with client(app) as http:
        yield http


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    """What a JSON-lines handler on the root log receives meanwhile, audit records included."""
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonLines())
    root, audit = logging.getLogger(), logging.getLogger("sutura.audit")
    level = audit.level
    root.addHandler(handler)
    audit.setLevel(logging.INFO)
    try:
        yield lines
    finally:
        root.removeHandler(handler)
        audit.setLevel(level)


def _audit(config: Path) -> list[dict[str, Any]]:
    text = (config / "audit.jsonl").read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n")[:-1]]


async def test_a_plausible_request_id_is_kept_and_returned(http: httpx.AsyncClient) -> None:
    response = await http.post("/v1/query", json=QUESTION, headers={**AUTH, "X-Request-Id": "t-1"})
    assert response.status_code == 200 and response.headers["x-request-id"] == "t-1"


@pytest.mark.parametrize(
    "given", ["", "a b", "x" * 129, "evil\u202e", 'q"uote', "line\\nbreak"], ids=repr
)
async def test_an_implausible_request_id_is_replaced_never_echoed(
    http: httpx.AsyncClient, given: str
) -> None:
    headers = {**{k.encode(): v.encode() for k, v in AUTH.items()}, b"X-Request-Id": given.encode()}
    response = await http.get("/v1/catalog", headers=headers)
    returned = response.headers["x-request-id"]
    assert returned != given and len(returned) == 32 and returned.isalnum()


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [("GET", "/health", 200), ("GET", "/v1/catalog", 401), ("GET", "/nowhere", 404)],
)
async def test_every_response_carries_a_request_id_even_one_no_route_made(
    http: httpx.AsyncClient, method: str, path: str, status: int
) -> None:
    response = await http.request(method, path)
    assert response.status_code == status
    assert len(response.headers["x-request-id"]) == 32


async def test_one_audit_record_per_call_of_every_capability_on_v1_and_mcp_no_value(
    tmp_path: Path, json_log: io.StringIO
) -> None:
    config = write_deployment(tmp_path, settings=AUDIT)
    ids = [f"audit-{n}" for n in range(3)]
    with anyio.fail_after(60):
        async with assembled(config) as started, client(started.app) as http:
            asked = await http.post(
                "/v1/query", json=FILTERED, headers={**AUTH, "X-Request-Id": ids[0]}
            )
            unknown = {**QUESTION, "metrics": ["no_such"]}
            refused = await http.post(
                "/v1/query", json=unknown, headers={**AUTH, "X-Request-Id": ids[1]}
            )
            catalog = await http.get("/v1/catalog", headers={**AUTH, "X-Request-Id": ids[2]})
            assert (asked.status_code, refused.status_code, catalog.status_code) == (200, 404, 200)
            async with (
                http_of(started.app, {**AUTH, "X-Request-Id": "audit-mcp"}) as over,
                mcp_client(over) as mcp,
            ):
                answered = await mcp.call_tool("ask_metric", QUESTION)
    # Written off the event loop: all of it is in the file, flushed, once the service has closed.
    records = _audit(config)
    assert [(r["capability"], r["outcome"], r["request_id"]) for r in records] == [
        ("ask_metric", "answer", ids[0]),
        ("ask_metric", "metric_unknown", ids[1]),
        ("describe_catalog", "answer", ids[2]),
        ("ask_metric", "answer", "audit-mcp"),
    ]
    for record in records:
        assert set(record) <= {
            "time", "request_id", "subject", "capability", "outcome", "duration_ms",
            "definition_digest", "metrics", "rows",
        }  # fmt: skip
        assert record["subject"] == "static-token" and record["duration_ms"] >= 0
        assert len(record["definition_digest"]) == 64 and record["time"].endswith("+00:00")
    assert records[0]["metrics"] == ["units"] and records[0]["rows"] == len(asked.json()["rows"])
    assert records[3]["rows"] == len(structured_of(answered)["rows"])
    sink = (config / "audit.jsonl").read_text(encoding="utf-8")
    assert "value-never-audited" not in sink
    assert not [case.name for case in CELLS if len(case.value) > 3 and case.value in sink]
    logged = [json.loads(line) for line in json_log.getvalue().split("\n") if line]
    audit_lines = [line for line in logged if line["logger"] == "sutura.audit"]
    assert [line["request_id"] for line in audit_lines] == [*ids, "audit-mcp"]


async def test_an_audit_path_that_cannot_be_opened_stops_the_start(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="audit:\n  path: no/such/dir/audit.jsonl\n")
    from returns.pipeline import is_successful

    from sutura.boundary.loading import load
    from sutura.transports.http.serve import started_app

    loaded = load({"SUTURA_CONFIG_DIR": str(config)}).unwrap()
    async with started_app(loaded, mcp=None) as started:
        assert not is_successful(started)
        (problem,) = started.failure()
    assert problem.startswith("audit.path: cannot open ") and "no/such/dir" in problem
