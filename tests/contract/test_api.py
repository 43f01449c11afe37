"""Every row of the contract through the Python API (``sutura.api``): ``opened``, ``call``
and, for a question, ``outcome_of``, on DuckDB and on PostgreSQL."""

from collections.abc import AsyncIterator
from typing import NamedTuple

import anyio
import pytest
from returns.pipeline import is_successful

from sutura import api
from sutura.boundary.service import Service
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Declined, Reply
from tests.contract.deployment import Deployment
from tests.contract.expect import check_structured
from tests.contract.rows import ROWS
from tests.contract.table import Body, Row, Surface, row_id, without_scope
from tests.refusals import expect_refusal

pytestmark = pytest.mark.anyio

TINY_DEADLINE = 1e-06


class Services(NamedTuple):
    """The deployment opened through the API, and the same with ``run_sql`` off."""

    served: Service
    off: Service


@pytest.fixture(scope="module")
async def services(deployment: Deployment) -> AsyncIterator[Services]:
    """Both services, opened once for the module."""
    off = deployment.with_settings(TOOLS__RUN_SQL__ENABLED="false")
    with anyio.fail_after(60):
        opening = api.opened(deployment.config, environ=deployment.environ)
        opening_off = api.opened(deployment.config, environ=off)
        served = await opening.__aenter__()
        without_sql = await opening_off.__aenter__()
    try:
        assert is_successful(served) and is_successful(without_sql)
        yield Services(served=served.unwrap(), off=without_sql.unwrap())
    finally:
        with anyio.fail_after(60):
            await opening_off.__aexit__(None, None, None)
            await opening.__aexit__(None, None, None)


async def _reply(services: Services, row: Row) -> Reply:
    service = services.served if row.run_sql else services.off
    with anyio.fail_after(30):
        if Surface.API in row.unsendable:  # the service's reply to a caller the API cannot be
            return await service.call(row.capability, row.arguments, without_scope(), 30.0)
        return await api.call(service, row.capability, row.arguments)


def _value_name(row: Row, reply: Reply) -> str:
    if row.capability is Capability.ASK_METRIC:
        return type(api.outcome_of(reply)).__name__
    return type(reply).__name__


@pytest.mark.parametrize("row", ROWS, ids=row_id)
async def test_every_row_comes_out_of_the_python_api_as_the_table_says(
    services: Services, row: Row
) -> None:
    reply = await _reply(services, row)
    assert type(reply) is row.reply
    assert _value_name(row, reply) == row.api
    if isinstance(reply, Declined):
        assert (reply.code, reply.status, reply.retryable) == (
            row.code,
            row.http.status,
            row.http.retry_after,
        )
    if row.http.body is not Body.FAILURE:
        assert isinstance(reply, api.Answered | Declined)
        check_structured(row, reply.halves.structured_object())


async def test_a_deadline_of_a_microsecond_is_the_deadline_exceeded_refusal(
    services: Services,
) -> None:
    question = next(row for row in ROWS if row.name == RefusalCode.DEADLINE_EXCEEDED).arguments
    with anyio.fail_after(10):
        started = anyio.current_time()
        reply = await api.call(
            services.served, Capability.ASK_METRIC, question, deadline=TINY_DEADLINE
        )
    expect_refusal(api.outcome_of(reply), RefusalCode.DEADLINE_EXCEEDED)
    assert anyio.current_time() - started < 0.5
