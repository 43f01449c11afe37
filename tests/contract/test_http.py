"""Every row of the contract over HTTP: the assembled app (the path ``sutura serve`` takes),
in-process through ``httpx.ASGITransport``, on DuckDB and on PostgreSQL."""

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any, NamedTuple

import anyio
import httpx
import pytest

from sutura.core.tool.caller import Caller
from sutura.transports.http.replies import response_of
from sutura.transports.http.serve import Started
from tests.contract.deployment import DEADLINE_SECONDS, Deployment
from tests.contract.expect import check_failure, check_nothing_leaked, check_structured
from tests.contract.rows import ROWS
from tests.contract.table import (
    Body,
    CallerKind,
    Row,
    Surface,
    row_id,
    v1_request,
    without_scope,
)
from tests.transports.http.deployments import AUTH, assembled, client

pytestmark = pytest.mark.anyio


class Seen(NamedTuple):
    """A response as the checks read it, whether it came over the wire or from the mapping."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class Apps(NamedTuple):
    """The deployment's app, and the same deployment with ``run_sql`` off."""

    served: Started
    http: httpx.AsyncClient
    off: httpx.AsyncClient


def _extra(deployment: Deployment, **more: str) -> dict[str, str]:
    return {k: v for k, v in deployment.environ.items() if k != "SUTURA_CONFIG_DIR"} | more


@pytest.fixture(scope="module")
async def apps(deployment: Deployment) -> AsyncIterator[Apps]:
    """Both apps, assembled once for the module."""
    off = _extra(deployment, SUTURA__TOOLS__RUN_SQL__ENABLED="false")
    async with (
        assembled(deployment.config, **_extra(deployment)) as served,
        assembled(deployment.config, **off) as without_sql,
        client(served.app) as http,
        client(without_sql.app) as http_off,
    ):
        yield Apps(served=served, http=http, off=http_off)


async def _sent(apps: Apps, row: Row) -> Seen:
    http = apps.http if row.run_sql else apps.off
    method, path, sent = v1_request(row)
    with anyio.fail_after(30):
        response = await http.request(method, path, headers=AUTH, **sent)
    assert response.headers["content-type"].startswith("application/json")
    return Seen(response.status_code, response.headers, response.content)


async def _mapped(apps: Apps, row: Row) -> Seen:
    """The service's real reply, through the HTTP surface's own mapping (``response_of``)."""
    caller = without_scope("mapped") if row.caller is CallerKind.WITHOUT_SCOPE else None
    service = apps.served.service
    with anyio.fail_after(30):
        reply = await service.call(
            row.capability,
            row.arguments,
            caller or Caller.local(request_id="mapped", surface="http"),
            DEADLINE_SECONDS,
        )
    response = response_of(reply)
    headers = {name.lower(): value for name, value in response.headers.items()}
    content: Any = response.content
    assert isinstance(content, bytes) and response.status_code is not None
    return Seen(response.status_code, headers, content)


@pytest.mark.parametrize("row", ROWS, ids=row_id)
async def test_every_row_comes_out_of_http_as_the_table_says(apps: Apps, row: Row) -> None:
    seen = await (_mapped(apps, row) if Surface.HTTP in row.unsendable else _sent(apps, row))
    assert seen.status == row.http.status, seen.body[:300]
    assert seen.headers["cache-control"] == "private, no-store"
    assert seen.headers.get("retry-after") == ("1" if row.http.retry_after else None)
    body = json.loads(seen.body)
    if row.http.body is Body.FAILURE:
        check_failure(row, body)
    else:
        check_structured(row, body)
    check_nothing_leaked(seen.body.decode("utf-8"), *seen.headers.values())
