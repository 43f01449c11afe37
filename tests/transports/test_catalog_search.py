"""A large catalog through every surface: ``describe_catalog`` searched and paged over MCP,
``GET /v1/catalog?search=&page=`` over HTTP and ``sutura catalog --search --page`` on the
command line give the same page, each at most 16 KB of text, with the page line saying which of
how many and how to read the next; a page past the last, a page that is not a number and an
unknown argument are refused by name; the prompt carries a compact index instead of every
metric."""

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from sutura.core.catalog.view.pages import PAGE_BYTES
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.scale_catalog import metric_name, write_scale_catalog
from tests.transports.http.deployments import assembled, client
from tests.transports.mcp.inprocess import connected, structured_of, text_of, wiring

pytestmark = pytest.mark.anyio

METRICS = 300


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scale_catalog(
        tmp_path_factory.mktemp("large"), metrics=METRICS, models=30, data=True
    )


def _page_line(text: str) -> str:
    return text.split("\n")[1]


async def test_mcp_describe_catalog_pages_the_whole_catalog_and_searches_it(large: Path) -> None:
    with anyio.fail_after(60):
        async with connected(wiring(large)) as client_:
            first = await client_.call_tool("describe_catalog", {})
            searched = await client_.call_tool("describe_catalog", {"search": "payroll"})
            named = await client_.call_tool("describe_catalog", {"search": metric_name(123)})
            with pytest.raises(MCPError) as past:
                await client_.call_tool("describe_catalog", {"page": 10_000})
            with pytest.raises(MCPError) as unknown:
                await client_.call_tool("describe_catalog", {"search": "x", "sql": "1"})
            instructions = client_.instructions or ""
    text = text_of(first)
    assert len(text.encode("utf-8")) <= PAGE_BYTES
    body = structured_of(first)
    pages = body["page"]["pages"]
    assert body["page"] == {"page": 1, "pages": pages, "matching": METRICS, "total": METRICS}
    assert pages > 1
    assert _page_line(text) == (
        f"page: 1 of {pages} ({METRICS} of {METRICS} metrics match; "
        "next: describe_catalog with page 2 and the same search)"
    )
    shown = [m["name"] for m in structured_of(searched)["metrics"]]
    # equal scores keep the catalog's order, which is by name
    expected = sorted(n for n in map(metric_name, range(METRICS)) if n.startswith("payroll_"))
    assert shown == expected
    assert structured_of(searched)["page"] == {
        "page": 1,
        "pages": 1,
        "matching": len(expected),
        "total": METRICS,
    }
    assert structured_of(named)["metrics"][0]["name"] == metric_name(123)
    assert past.value.code == unknown.value.code == -32602
    assert f"$.page: page 10000 is past the last page ({pages})" in str(past.value)
    assert "$: an unknown field is present" in str(unknown.value)
    listed = [
        n
        for line in instructions.split("\n")
        if line.startswith("metrics:\t")
        for n in line.split("\t")[1:]
    ]
    assert listed == sorted(map(metric_name, range(METRICS)))
    assert "\nmetric: " not in instructions


async def test_http_catalog_takes_search_and_page_and_refuses_what_it_cannot_read(
    large: Path,
) -> None:
    async with assembled(large) as started, client(started.app) as http:
        with anyio.fail_after(60):
            one = await http.get("/v1/catalog", params={"search": "bookings 7"})
            page = await http.get("/v1/catalog", params={"search": "bookings 7", "page": "2"})
            whole = await http.get("/v1/catalog")
            bad = await http.get("/v1/catalog", params={"page": "two"})
            zero = await http.get("/v1/catalog", params={"page": "0"})
            unknown = await http.get("/v1/catalog", params={"limit": "5"})
            twice = await http.get("/v1/catalog?page=1&page=2")
    assert page.status_code == 200
    body: dict[str, Any] = page.json()
    # "bookings" is a word of every count's prose ("The freight bookings of ledger 7, ..."):
    # those of ledger 7 (and metric number 7) match both words, so they come first; a metric
    # matching either word is listed
    counts = [i for i in range(METRICS) if i % 2 == 1]
    assert body["page"]["page"] == 2 and len(counts) < body["page"]["matching"] < METRICS
    both = sorted(metric_name(i) for i in counts if i % 29 == 7 or i == 7)
    ranked = [m["name"] for m in one.json()["metrics"]]
    assert ranked[: len(both)] == both
    assert not {m["name"] for m in body["metrics"]} & set(ranked)
    assert whole.status_code == 200 and whole.json()["page"]["page"] == 1
    for response, field in ((bad, "$.page"), (zero, "$.page"), (unknown, "$"), (twice, "$.page")):
        assert response.status_code == 400, response.text
        assert field in response.text


async def test_mcp_and_http_and_the_cli_give_the_same_page(
    large: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments: dict[str, str | int] = {"search": "freight ledger", "page": 3}
    with anyio.fail_after(60):
        async with connected(wiring(large)) as client_:
            over_mcp = structured_of(await client_.call_tool("describe_catalog", arguments))
    async with assembled(large) as started, client(started.app) as http:
        with anyio.fail_after(60):
            over_http = (await http.get("/v1/catalog", params=arguments)).json()
    argv = ["catalog", "--json", "--search", "freight ledger", "--page", "3"]
    cli = Wiring({"SUTURA_CONFIG_DIR": str(large)})
    code = await anyio.to_thread.run_sync(run_cli, argv, cli)  # it runs its own event loop
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert over_mcp == over_http == json.loads(out)
    assert over_mcp["page"]["page"] == 3
    code = await anyio.to_thread.run_sync(run_cli, ["catalog", "--page", "9999"], cli)
    out, err = capsys.readouterr()
    assert code == 2 and "page 9999 is past the last page" in err
