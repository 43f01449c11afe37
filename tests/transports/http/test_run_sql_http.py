"""``POST /v1/sql/run``: 403 ``tool_not_enabled`` while off; raw rows or a raw refusal at its
own status when on, never a provenance-shaped key; malformed bodies named, never echoed."""

import json
import logging
import resource
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sutura.core.raw.outcome import RawRefusalCode, raw_status
from sutura.transports.http.serve import Started
from tests.transports.http.deployments import (
    AUTH,
    SLOW_TABLE,
    assembled,
    assembled_in_portal,
    shared_client,
    write_deployment,
)

pytestmark = pytest.mark.anyio

RUN_SQL = "tools:\n  run_sql:\n    enabled: true\n    source: main\n"
LIMITS = "limits:\n  max_rows: 10\n  deadline_seconds: 0.5\n"
PROVENANCE_SHAPED = ("provenance", "definition_", "metric_digests", "executed_as")
FUZZED = 60
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
async def off(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    async with shared_client(tmp_path_factory) as http:
        yield http


@pytest.fixture(scope="module")
async def on(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[httpx.AsyncClient]:
    async with shared_client(tmp_path_factory, settings=RUN_SQL + LIMITS) as http:
        yield http


async def _post(http: httpx.AsyncClient, body: object = None, **kwargs: Any) -> httpx.Response:
    headers = kwargs.pop("headers", AUTH)
    with anyio.fail_after(10):
        if body is None:
            return await http.post("/v1/sql/run", headers=headers, **kwargs)
        return await http.post("/v1/sql/run", json=body, headers=headers, **kwargs)


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


@pytest.mark.parametrize("content", [b'{"statement": "SELECT 1"}', b"not even json", b""])
async def test_while_off_every_body_is_tool_not_enabled_unread(
    off: httpx.AsyncClient, content: bytes
) -> None:
    response = await _post(off, content=content)
    assert response.status_code == 403
    assert response.json()["code"] == "tool_not_enabled"


async def test_while_off_the_token_is_still_checked_first(off: httpx.AsyncClient) -> None:
    response = await _post(off, {"statement": "SELECT 1"}, headers={})
    assert response.status_code == 401 and response.json()["code"] == "unauthorized"


async def test_rows_are_200_with_no_provenance_shaped_key_at_any_depth(
    on: httpx.AsyncClient,
) -> None:
    response = await _post(on, {"statement": "SELECT units FROM cells ORDER BY units LIMIT 2"})
    assert response.status_code == 200
    assert response.json() == {"outcome": "raw_rows", "columns": ["units"], "rows": [["1"], ["2"]]}
    assert response.headers["cache-control"] == "private, no-store"
    assert not [key for key in _keys(response.json()) if key.startswith(PROVENANCE_SHAPED)]


@pytest.mark.parametrize(
    ("statement", "code"),
    [
        ("DROP TABLE cells", RawRefusalCode.NOT_READ_ONLY),
        ("SELECT 1; DROP TABLE cells", RawRefusalCode.NOT_ONE_STATEMENT),
        ("SELECT * FROM cells", RawRefusalCode.TOO_MANY_ROWS),
        ("SELEC 1", RawRefusalCode.STATEMENT_FAILED),
        (f"SELECT count(*) FROM {SLOW_TABLE}", RawRefusalCode.DEADLINE_EXCEEDED),
        ("SELECT [1, 2]", RawRefusalCode.VALUE_NOT_SUPPORTED),
    ],
)
async def test_a_raw_refusal_is_sent_at_its_own_status(
    on: httpx.AsyncClient, statement: str, code: RawRefusalCode
) -> None:
    response = await _post(on, {"statement": statement})
    body = response.json()
    assert response.status_code == raw_status(code)
    assert (body["outcome"], body["code"]) == ("raw_refusal", code.value)
    assert not [key for key in _keys(body) if key.startswith(PROVENANCE_SHAPED)]
    if code is not RawRefusalCode.STATEMENT_FAILED:
        assert "database_text" not in body


async def test_an_enormous_value_is_answered_at_the_deadline_and_the_service_stays_small(
    on: httpx.AsyncClient,
) -> None:
    """#19: one statement building one enormous value outlived its deadline and grew the
    process to 4 GB; now it is killed with its worker at the deadline."""
    statement = (
        "SELECT length(string_agg(md5(a.range::VARCHAR), '')) FROM range(100000) a, range(100000) b"
    )
    rss = _rss()
    started = anyio.current_time()
    response = await _post(on, {"statement": statement})
    took = anyio.current_time() - started
    assert (response.status_code, response.json()["code"]) == (
        raw_status(RawRefusalCode.DEADLINE_EXCEEDED),
        RawRefusalCode.DEADLINE_EXCEEDED.value,
    )
    assert took < 0.5 + 1.5, took
    assert _rss() - rss < 64 * 1024 * 1024
    after = await _post(on, {"statement": "SELECT 41 + 1 AS n"})
    assert (after.status_code, after.json()["rows"]) == (200, [["42"]])


def _rss() -> int:
    """This process's resident memory (the service runs in it), in bytes."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize()


async def test_the_database_words_arrive_exactly_as_one_json_string(on: httpx.AsyncClient) -> None:
    name = 'x\n\\. rows: 1\ndefinitions: v1 (digest 00)\t\u202e"'
    quoted = name.replace('"', '""')
    response = await _post(on, {"statement": f'SELECT * FROM "{quoted}"'})
    body = response.json()
    assert response.status_code == 422 and body["code"] == "statement_failed"
    assert name in body["database_text"]


@pytest.mark.parametrize(
    ("content", "field"),
    [
        (b"", "$"),
        (b"[]", "$"),
        (b"not json", "$"),
        (b'{"statement": 1}', "$.statement"),
        (b'{"statement": "SELECT 1", "SECRET": "x"}', "$"),
    ],
)
async def test_a_body_that_is_not_a_statement_is_400_naming_the_field(
    on: httpx.AsyncClient, content: bytes, field: str
) -> None:
    response = await _post(on, content=content)
    body = response.json()
    assert response.status_code == 400 and body["code"] == "not_a_statement"
    assert body["detail"].startswith(f"malformed statement: {field}: ")
    assert "SECRET" not in body["detail"]


async def test_every_call_is_audited_on_the_log_and_never_in_the_response(
    on: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    response = await _post(on, {"statement": "DROP TABLE cells"})
    (line,) = [r.getMessage() for r in caplog.records if r.name == "sutura.audit"]
    record = json.loads(line)
    assert (record["capability"], record["outcome"]) == ("run_sql", "not_read_only")
    assert "statement" not in record and record["subject"] == "static-token"
    assert record["request_id"] == response.headers["x-request-id"]
    assert "sha256" not in response.text and "duration" not in response.text


async def test_the_api_document_is_the_same_whether_the_tool_is_on_or_off(tmp_path: Path) -> None:
    documents = []
    for name, document in (("off", ""), ("on", RUN_SQL)):
        config = write_deployment(tmp_path / name, settings=document)
        with anyio.fail_after(30):
            async with assembled(config) as started:
                documents.append(started.app.openapi_schema.to_schema())
    assert documents[0] == documents[1]


@pytest.fixture
def started_on(tmp_path: Path) -> Iterator[Started]:
    """An app with the tool on (synchronous: schemathesis drives it from its own loop)."""

    host = "server:\n  allowed_hosts: [testserver]\n"  # the Host schemathesis's client sends
    config = write_deployment(tmp_path, settings=RUN_SQL + LIMITS + host)
    with assembled_in_portal(config) as value:
        yield value


@pytest.mark.parametrize(
    "mode", [schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE]
)
def test_every_response_to_generated_statements_conforms_to_the_document(
    started_on: Started, mode: schemathesis.GenerationMode
) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", started_on.app)
    strategy = schema.include(path="/v1/sql/run").as_strategy(generation_mode=mode)

    @settings(
        max_examples=FUZZED,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: schemathesis.Case[Any]) -> None:
        case.call_and_validate(headers=AUTH, checks=CHECKS)

    run()
