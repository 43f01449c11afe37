"""``docs/http.md`` stays true: every route, failure code, refusal status and limit is in it."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

from sutura.core.nouns.refusal import RefusalCode, status_of
from sutura.transports.http.wire import FailureCode, failure_status
from tests.transports.http.deployments import assembled, write_deployment

DOC = Path(__file__).resolve().parents[3] / "docs" / "http.md"
TEXT = DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["auth", "limits", "wire"])
def test_the_examples_in_each_http_module_docstring_run(name: str) -> None:
    module = importlib.import_module(f"sutura.transports.http.{name}")
    failed, _ = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert failed == 0


@pytest.mark.parametrize("code", list(FailureCode), ids=str)
def test_every_failure_code_is_in_the_error_channel_table_at_its_status(
    code: FailureCode,
) -> None:
    row = re.search(rf"^\| `{code.value}` \| (\d+) \|", TEXT, re.M)
    assert row is not None, f"docs/http.md: no row for {code.value}"
    assert int(row.group(1)) == failure_status(code)


@pytest.mark.parametrize("code", list(RefusalCode), ids=str)
def test_every_refusal_code_is_in_the_refusal_table_at_its_status(code: RefusalCode) -> None:
    rows = dict(re.findall(r"^\| (\d{3}) \| (.*) \|$", TEXT, re.M))
    assert f"`{code.value}`" in rows.get(str(status_of(code)), ""), code.value


@pytest.mark.anyio
async def test_every_route_is_documented_with_a_curl_example(tmp_path: Path) -> None:
    async with assembled(write_deployment(tmp_path)) as started:
        paths = set(started.app.openapi_schema.to_schema()["paths"])
    for path in sorted(paths | {"/openapi.json", "/docs"}):
        assert f"$URL{path}" in TEXT, f"docs/http.md: no curl example for {path}"


@pytest.mark.parametrize(
    "key",
    [
        "server.max_body_bytes",
        "server.request_timeout_seconds",
        "server.max_concurrent_queries",
        "server.header_timeout_seconds",
        "server.max_connections",
        "server.allowed_hosts",
        "security.access_token",
        "prompt.catalog_prose",
        "limits.deadline_seconds",
        "limits.max_rows",
    ],
)
def test_every_setting_the_surface_reads_is_documented(key: str) -> None:
    assert f"`{key}`" in TEXT
