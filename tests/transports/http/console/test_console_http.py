"""The console at ``/`` over HTTP, in-process: its files, its policy, its switch, its guards
and its compiler (the browser itself is driven in ``test_console_browser``)."""

import re
from collections.abc import AsyncIterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import anyio
import httpx
import msgspec
import pytest

from sutura.core.nouns.question import Question
from sutura.core.tool.caller import Caller
from sutura.transports.http.console.assets import ASSETS, asset_bytes
from sutura.transports.http.serve import Started
from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment

pytestmark = pytest.mark.anyio

FIRST_LOAD_LIMIT = 200_000
PRODUCTION_TOKEN = "production-token-0123456789abcdef0123"  # production wants 32 characters
PRODUCTION_AUTH = {"Authorization": f"Bearer {PRODUCTION_TOKEN}"}


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: the deployment is opened once."""
    return "asyncio"


@pytest.fixture(scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[Started, httpx.AsyncClient]]:
    """The deployment with the console on (development's default), and its client."""
    config = write_deployment(tmp_path_factory.mktemp("console"))
    async with assembled(config) as started, client(started.app) as http:
        yield started, http


class _Page(HTMLParser):
    """Every start tag of a page with its attributes, and any text inside a script or style."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.inline: list[str] = []
        self._inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._inside = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag: str) -> None:
        self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside and data.strip():
            self.inline.append(data)


def _page() -> _Page:
    page = _Page()
    page.feed(asset_bytes(ASSETS[0]).decode("utf-8"))
    return page


async def test_every_console_file_is_served_under_a_strict_content_security_policy(
    served: tuple[Started, httpx.AsyncClient],
) -> None:
    _, http = served
    for asset in ASSETS:
        with anyio.fail_after(10):
            response = await http.get(asset.path)
        assert response.status_code == 200, asset.path
        assert response.content == asset_bytes(asset)
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self';" in policy
        assert "unsafe" not in policy and "frame-ancestors 'none'" in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["content-type"].startswith(asset.media_type)


async def test_first_load_is_every_file_the_page_names_and_under_200_kb(
    served: tuple[Started, httpx.AsyncClient],
) -> None:
    _, http = served
    named = {
        attrs.get("src") or attrs.get("href")
        for tag, attrs in _page().tags
        if tag in ("script", "link")
    }
    assert named == {asset.path for asset in ASSETS[1:]}
    total = 0
    for asset in ASSETS:
        with anyio.fail_after(10):
            total += len((await http.get(asset.path)).content)
    assert total < FIRST_LOAD_LIMIT


def test_the_page_has_no_inline_script_no_inline_style_and_no_handler_attribute() -> None:
    page = _page()
    assert page.inline == []
    scripts = [attrs for tag, attrs in page.tags if tag == "script"]
    assert scripts and all((attrs.get("src") or "").startswith("/console/") for attrs in scripts)
    for tag, attrs in page.tags:
        assert tag != "style"
        assert not [name for name in attrs if name.startswith("on") or name == "style"], tag


def test_the_script_never_writes_markup_or_evaluates_text() -> None:
    script = asset_bytes(ASSETS[2]).decode("utf-8")
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("//"))
    forbidden = (
        r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|\.src\s*="
    )
    assert re.findall(forbidden, code) == []
    assert "textContent" in code and "createTextNode" in code


async def test_the_console_helpers_refuse_a_caller_without_the_token(
    served: tuple[Started, httpx.AsyncClient],
) -> None:
    _, http = served
    wrong = {"Authorization": "Bearer not-the-token-at-all"}
    for path in (
        "/console/agent/ask_metric",
        "/console/agent/describe_catalog",
        "/console/compile",
    ):
        for headers in ({}, wrong):
            with anyio.fail_after(10):
                response = await http.post(path, json=QUESTION, headers=headers)
            assert response.status_code == 401, path
            assert response.json()["code"] == "unauthorized"


async def test_compile_shows_the_statement_and_parameters_ask_metric_runs(
    served: tuple[Started, httpx.AsyncClient],
) -> None:
    started, http = served
    with anyio.fail_after(10):
        response = await http.post("/console/compile", json=QUESTION, headers=AUTH)
    assert response.status_code == 200, response.text
    assert response.headers["cache-control"] == "private, no-store"
    shown = response.json()
    _, compiled = started.service.plan(
        msgspec.convert(QUESTION, Question), Caller.local(request_id="t", surface="test")
    ).unwrap()
    assert (shown["dialect"], shown["sql"]) == ("duckdb", compiled.sql)
    assert [(p["position"], p["type"], p["text"]) for p in shown["parameters"]] == [
        (1, "date", "2024-01-01"),
        (2, "date", "2025-01-01"),
    ]
    assert shown["plan"] == list(compiled.plan) and shown["columns"] == ["period", "label", "units"]


@pytest.mark.parametrize(
    ("question", "status", "code"),
    [
        ({**QUESTION, "metrics": ["no_such_metric"]}, 404, "metric_unknown"),
        ({**QUESTION, "grain": "fortnight"}, 400, "not_a_question"),
        ({**QUESTION, "dimensions": ["label", "label"]}, 422, "duplicate_dimension"),
    ],
)
async def test_a_question_that_does_not_compile_gets_the_body_v1_query_sends(
    served: tuple[Started, httpx.AsyncClient], question: dict[str, Any], status: int, code: str
) -> None:
    _, http = served
    with anyio.fail_after(10):
        compiled = await http.post("/console/compile", json=question, headers=AUTH)
        asked = await http.post("/v1/query", json=question, headers=AUTH)
    assert (compiled.status_code, compiled.content) == (asked.status_code, asked.content)
    assert compiled.status_code == status and code in compiled.text


@pytest.mark.parametrize(
    ("settings", "environ"),
    [
        ("server:\n  console: false\n", {}),
        ("", {"SUTURA_ENVIRONMENT": "production"}),
        ("", {"SUTURA_ENVIRONMENT": "test"}),
    ],
    ids=["turned-off", "production-default", "test-default"],
)
async def test_the_console_is_absent_when_turned_off_and_outside_development_by_default(
    tmp_path: Path, settings: str, environ: dict[str, str]
) -> None:
    config = write_deployment(tmp_path, settings=settings, token=PRODUCTION_TOKEN)
    async with assembled(config, **environ) as started, client(started.app) as http:
        with anyio.fail_after(10):
            page = await http.get("/")
            helper = await http.post("/console/compile", json=QUESTION, headers=PRODUCTION_AUTH)
            catalog = await http.get("/v1/catalog", headers=PRODUCTION_AUTH)
    assert (page.status_code, helper.status_code, catalog.status_code) == (404, 404, 200)


async def test_production_serves_the_console_when_the_operator_turns_it_on(tmp_path: Path) -> None:
    config = write_deployment(
        tmp_path, settings="server:\n  console: true\n", token=PRODUCTION_TOKEN
    )
    async with (
        assembled(config, SUTURA_ENVIRONMENT="production") as started,
        client(started.app) as http,
    ):
        with anyio.fail_after(10):
            page = await http.get("/")
            unauthorised = await http.post("/console/compile", json=QUESTION)
    assert (page.status_code, unauthorised.status_code) == (200, 401)
