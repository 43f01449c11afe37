"""A driver's complaint is logged and never returned; a failure has a fixed sentence."""

import logging
from pathlib import Path

import anyio
import duckdb
import httpx
import pytest

from sutura.boundary.sources.duckdb import duckdb_fault
from sutura.core.nouns.refusal import RefusalCode
from sutura.transports.http.wire import FAILURE_DETAILS, FailureCode
from tests.refusals import expect_refusal
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    DoubleSource,
    app_over,
    assembled,
    client,
    refusal_of,
    write_deployment,
)

pytestmark = pytest.mark.anyio

CANARY = "canary_5e1f_drv"


def _assert_nowhere(response: httpx.Response, canary: str) -> None:
    assert canary not in response.text
    for name, value in response.headers.items():
        assert canary not in name and canary not in value


async def test_a_statement_the_data_system_refuses_is_refused_and_its_error_only_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def refuse(_statement: str) -> list[list[object]]:
        raise duckdb.CatalogException(f"Table with name {CANARY} does not exist!")

    caplog.set_level(logging.WARNING, logger="sutura")
    app = app_over(write_deployment(tmp_path), DoubleSource(refuse, classify=duckdb_fault))
    async with client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 403
    expect_refusal(refusal_of(response), RefusalCode.SOURCE_REFUSED)
    _assert_nowhere(response, CANARY)
    assert CANARY in caplog.text


async def test_a_source_that_raises_is_an_internal_failure_with_a_fixed_sentence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def explode(_statement: str) -> list[list[object]]:
        raise RuntimeError(f"driver said: relation {CANARY} is on fire")

    caplog.set_level(logging.ERROR, logger="sutura")
    app = app_over(write_deployment(tmp_path), DoubleSource(explode))
    async with client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 500
    assert response.json() == {
        "code": "internal",
        "status": 500,
        "detail": FAILURE_DETAILS[FailureCode.INTERNAL],
    }
    _assert_nowhere(response, CANARY)
    assert CANARY in caplog.text


async def test_a_source_that_cannot_be_reached_is_the_source_unavailable_refusal(
    tmp_path: Path,
) -> None:
    config = write_deployment(tmp_path)
    async with assembled(config) as started, client(started.app) as http:
        for source in started.service.sources.values():
            await source.close()
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 503
    expect_refusal(refusal_of(response), RefusalCode.SOURCE_UNAVAILABLE)
    assert response.headers["retry-after"] == "1"
