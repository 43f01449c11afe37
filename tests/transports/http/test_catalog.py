"""``GET /v1/catalog`` honours ``prompt.catalog_prose`` as the deployment was started with it.

These tests start the assembled application from a settings document, through the path
``sutura serve`` takes, because the defect this guards against lived in the wiring: a test
handing the setting to the body would pass with a handler that still defaults it.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.transports.http.deployments import (
    AUTH,
    DIMENSION_PROSE,
    METRIC_PROSE,
    assembled,
    client,
    write_deployment,
)

pytestmark = pytest.mark.anyio


def _keys(value: Any) -> Iterator[str]:
    """Every object key at any depth of a JSON value."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


async def _catalog(config: Path) -> tuple[dict[str, Any], str, dict[str, str]]:
    async with assembled(config) as started, client(started.app) as http:
        with anyio.fail_after(10):
            response = await http.get("/v1/catalog", headers=AUTH)
    assert response.status_code == 200
    return response.json(), response.text, dict(response.headers)


async def test_omitted_in_the_settings_document_omits_every_description(tmp_path: Path) -> None:
    body, text, headers = await _catalog(write_deployment(tmp_path, prose="omitted"))
    assert body["catalog_prose"] == "omitted"
    assert "description" not in set(_keys(body))
    assert METRIC_PROSE not in text
    assert DIMENSION_PROSE not in text
    assert [m["name"] for m in body["metrics"]] == ["units"]
    assert headers["cache-control"] == "private, no-store"


@pytest.mark.parametrize("prose", [None, "quoted"], ids=["default", "explicit"])
async def test_quoted_carries_every_description_as_the_author_wrote_it(
    tmp_path: Path, prose: str | None
) -> None:
    body, _, headers = await _catalog(write_deployment(tmp_path, prose=prose))
    assert body["catalog_prose"] == "quoted"
    (metric,) = body["metrics"]
    assert metric["description"].strip() == METRIC_PROSE
    assert [d["description"] for d in metric["dimensions"]] == [DIMENSION_PROSE]
    assert headers["cache-control"] == "private, no-store"


async def test_an_environment_variable_over_the_document_is_what_the_route_honours(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path, prose="quoted")
    omitted = {"SUTURA__PROMPT__CATALOG_PROSE": "omitted"}
    async with assembled(config, **omitted) as started, client(started.app) as http:
        with anyio.fail_after(10):
            body = (await http.get("/v1/catalog", headers=AUTH)).json()
    assert body["catalog_prose"] == "omitted"
    assert "description" not in set(_keys(body))


async def test_a_catalog_refused_for_want_of_a_token_is_not_cacheable_either(
    tmp_path: Path,
) -> None:
    async with assembled(write_deployment(tmp_path)) as started, client(started.app) as http:
        with anyio.fail_after(10):
            response = await http.get("/v1/catalog")
    assert response.status_code == 401
    assert response.headers["cache-control"] == "private, no-store"
