"""Where each metric's data is, through HTTP and MCP over ``sutura serve``'s app, on DuckDB and
PostgreSQL (Spark: ``tests/conformance/test_spark_conformance.py``): asked when the server
starts, stated on both halves of ``describe_catalog`` and in the prompt a caller is served,
asked again once older than the source's ``cache.max_age_seconds`` on the service's clock, and
never told of a metric the caller cannot see (which stays ``metric_unknown``, byte for byte)."""

import datetime
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import duckdb
import httpx
import psycopg
import pytest

from sutura.boundary import service as service_module
from sutura.boundary.example import DATABASE
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Scope
from sutura.transports.http.serve import Started
from tests.postgres import copy_from_duckdb, scratch_database
from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import PASSWORD_VAR, write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.remote import http_of, mcp_client

pytestmark = pytest.mark.anyio

PAIR = KeyPair("extent-key")
START = datetime.datetime(2026, 2, 1, 9, 0, tzinfo=datetime.UTC)
MAX_AGE = {"SUTURA__SOURCES__MAIN__CACHE__MAX_AGE_SECONDS": "60"}
# Revenue and the metrics on orders not cancelled; active customers on paid orders.
ORACLE = {
    "revenue": "(order_status IS NULL OR order_status <> 'cancelled')",
    "active_customers": "is_paid",
}


class Clock:
    """The service's wall clock, moved by the tests."""

    def __init__(self) -> None:
        self.moment = START

    def now(self) -> datetime.datetime:
        return self.moment

    def instant(self) -> str:
        return self.moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Deployment(NamedTuple):
    engine: str
    started: Started
    http: httpx.AsyncClient
    admin_dsn: str | None
    """PostgreSQL: the scratch database, as its administrator."""
    reader: str | None
    """PostgreSQL: the role the service reads as."""
    prompt_at_start: str
    """The prompt a finance caller is served before anyone read the catalog."""


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """One event loop for the module: its tests share each engine's deployment."""
    return "asyncio"


@pytest.fixture(scope="module")
def clock() -> Iterator[Clock]:
    ticking = Clock()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(service_module, "utc_now", ticking.now)
        yield ticking


@pytest.fixture(
    scope="module", params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]
)
async def deployment(
    request: pytest.FixtureRequest,
    example_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
    clock: Clock,
) -> AsyncIterator[Deployment]:
    """The multi-user example on each engine, started the way ``sutura serve`` starts."""
    root = tmp_path_factory.mktemp(f"extent-{request.param}")
    if request.param == "duckdb":
        config = write_multi_user(root / "config", example_dir, PAIR)
        async with assembled(config, **MAX_AGE) as started, client(started.app) as http:
            yield Deployment("duckdb", started, http, None, None, _finance_prompt(started))
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    with scratch_database(dsn) as scratch:
        copy_from_duckdb(example_dir / DATABASE, scratch, root)
        source = json.dumps(scratch.source_settings(PASSWORD_VAR, pool_size=2))
        config = write_multi_user(root / "config", example_dir, PAIR, source=source)
        secrets = {PASSWORD_VAR: scratch.reader_password, **MAX_AGE}
        async with assembled(config, **secrets) as started, client(started.app) as http:
            prompt = _finance_prompt(started)
            yield Deployment("postgres", started, http, scratch.admin_dsn, scratch.reader, prompt)


def _finance_prompt(started: Started) -> str:
    audiences = frozenset({"finance"})
    caller = Caller(subject="f", scopes=frozenset(Scope), audiences=audiences, request_id="r")
    return started.service.prompt_for(caller)


def _as(groups: list[str]) -> dict[str, str]:
    return {"Authorization": f"Bearer {mint(PAIR, claims(groups=groups))}"}


async def _catalog(http: httpx.AsyncClient, groups: list[str]) -> dict[str, Any]:
    with anyio.fail_after(30):
        response = await http.get("/v1/catalog", headers=_as(groups))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _data(body: dict[str, Any]) -> dict[str, Any]:
    return {metric["name"]: metric.get("data") for metric in body["metrics"]}


def _oracle(example_dir: Path) -> dict[str, tuple[str, str]]:
    """First and last day of each metric's rows, read from the example's data directly."""
    with duckdb.connect(str(example_dir / DATABASE), read_only=True) as data:
        found = {}
        for metric, where in ORACLE.items():
            row = data.execute(
                f"SELECT min(ordered_on), max(ordered_on) FROM orders WHERE {where}"
            ).fetchone()
            assert row is not None
            found[metric] = (row[0].isoformat(), row[1].isoformat())
        return found


async def test_each_metrics_data_is_stated_on_both_halves_and_in_the_prompt(
    deployment: Deployment, example_dir: Path, clock: Clock
) -> None:
    oracle = _oracle(example_dir)
    data = _data(await _catalog(deployment.http, ["finance-team"]))
    for metric, (first, last) in oracle.items():
        assert data[metric] is not None and (data[metric]["first"], data[metric]["last"]) == (
            first,
            last,
        )
    assert data["return_rate"] is not None  # the caller's own restricted metric
    assert all(stated is not None for stated in data.values())
    headers = _as(["finance-team"])
    async with http_of(deployment.started.app, headers) as http2, mcp_client(http2) as mcp:
        with anyio.fail_after(30):
            described = await mcp.call_tool("describe_catalog", {})
        instructions = mcp.instructions
    text = described.content[0].text  # type: ignore[union-attr]
    first, last = oracle["revenue"]
    as_of = data["revenue"]["as_of"]
    line = f"data: from {first} to {last} (as of {as_of})"
    lines = text.split("\n")
    at = lines.index("metric: revenue")
    assert lines[at + 2] == line  # after its grains, before its prose
    assert described.structured_content is not None
    assert _data(described.structured_content) == data
    assert instructions is not None and line in instructions.split("\n")
    # Asked when the server started: the prompt served before any catalog read states it.
    assert f"data: from {first} to {last} (as of " in deployment.prompt_at_start


async def test_a_metric_the_caller_cannot_see_has_no_extent_and_stays_unknown(
    deployment: Deployment,
) -> None:
    staff = await _catalog(deployment.http, ["staff"])
    assert "return_rate" not in _data(staff)
    caller = Caller(subject="s", scopes=frozenset(Scope), audiences=frozenset(), request_id="r")
    assert "metric: return_rate" not in deployment.started.service.prompt_for(caller)
    asked = []
    for metric in ("return_rate", "no_such_metric"):
        question = {
            "metrics": [metric],
            "grain": "year",
            "range": {"last": {"count": 1, "unit": "year"}},
        }
        with anyio.fail_after(30):
            response = await deployment.http.post(
                "/v1/query", json=question, headers={**_as(["staff"]), "X-Request-Id": "same"}
            )
        asked.append((response.status_code, response.content, dict(response.headers)))
    assert asked[0] == asked[1]


async def test_the_extent_is_asked_again_once_as_old_as_an_answer_may_be(
    deployment: Deployment, clock: Clock
) -> None:
    before = _data(await _catalog(deployment.http, ["finance-team"]))["revenue"]
    if deployment.admin_dsn is not None:  # PostgreSQL's data changes under the service
        with psycopg.connect(deployment.admin_dsn, autocommit=True) as admin:
            admin.execute(
                "INSERT INTO orders VALUES (9000001, 1, DATE '2026-01-31', 1.00, 'placed',"
                " 'web', true, false)"
            )
    clock.moment += datetime.timedelta(seconds=59)
    within = _data(await _catalog(deployment.http, ["finance-team"]))["revenue"]
    assert within == before  # not yet as old as an answer may be
    clock.moment += datetime.timedelta(seconds=2)
    after = _data(await _catalog(deployment.http, ["finance-team"]))["revenue"]
    assert after["as_of"] == clock.instant() and after["as_of"] != before["as_of"]
    moved = "2026-01-31" if deployment.admin_dsn is not None else before["last"]
    assert (after["first"], after["last"]) == (before["first"], moved)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", after["as_of"])


async def test_an_extent_its_source_refuses_leaves_its_metrics_without_one_and_no_other(
    deployment: Deployment, clock: Clock
) -> None:
    """The extents of a source are asked together (boundary/extents.py); when one of them
    fails (PostgreSQL: the reader may no longer read the column active_customers' required
    filter reads), each is asked alone, and only that one's metrics lose their data line."""
    before = _data(await _catalog(deployment.http, ["finance-team"]))
    assert all(stated is not None for stated in before.values())
    if deployment.admin_dsn is None or deployment.reader is None:  # DuckDB: asked again alike
        clock.moment += datetime.timedelta(seconds=61)
        again = _data(await _catalog(deployment.http, ["finance-team"]))
        assert {name: (d["first"], d["last"]) for name, d in again.items()} == {
            name: (d["first"], d["last"]) for name, d in before.items()
        }
        return
    reader = deployment.reader
    with psycopg.connect(deployment.admin_dsn, autocommit=True) as admin:
        readable = [
            str(row[0])
            for row in admin.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_name = 'orders' AND column_name <> 'is_paid'"
            ).fetchall()
        ]
        admin.execute(f'REVOKE SELECT ON orders FROM "{reader}"')
        admin.execute(f'GRANT SELECT ({", ".join(readable)}) ON orders TO "{reader}"')
        try:
            clock.moment += datetime.timedelta(seconds=61)
            after = _data(await _catalog(deployment.http, ["finance-team"]))
        finally:
            admin.execute(f'GRANT SELECT ON orders TO "{reader}"')
    assert after["active_customers"] is None
    assert {name for name, stated in after.items() if stated is None} == {"active_customers"}
    assert after["revenue"]["as_of"] == clock.instant()
