"""Exact ranges through every surface a user touches, on every source kind: a question without
a grain (one row per group over exactly the days asked, no period column) and a range widened
to whole months (both halves state the range asked beside the range read) give the same answer
through the Python API, the command line, ``POST /v1/query``, ``/mcp`` and ``sutura mcp`` on
stdio — on a DuckDB file, a directory of Parquet files, PostgreSQL and Spark — and it is the
answer plain SQL over the example's rows gives."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, NamedTuple

import anyio
import duckdb
import pytest

from sutura import api
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.core.sql.cells import cell_text
from sutura.core.tool.codec import halves_of
from sutura.core.tool.reply import Answered
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.clock import unclocked
from tests.conformance.conftest import ORDERS
from tests.conformance.pack import add_pack_rows
from tests.postgres import copy_from_duckdb, scratch_database
from tests.spark_server import load_tables, require_server
from tests.transports.http.deployments import assembled
from tests.transports.mcp.inprocess import structured_of
from tests.transports.mcp.remote import LEGACY, http_of, mcp_client
from tests.transports.mcp.spawned import spawned

PASSWORD_VAR: Final = "SUTURA_EXACT_RANGE_PASSWORD"
SPRING: Final = {"start": "2024-03-10", "end": "2024-04-20"}
EXACT: Final[dict[str, Any]] = {
    "metrics": ["revenue", "order_count"],
    "range": SPRING,
    "dimensions": ["channel"],
}
WIDENED: Final[dict[str, Any]] = {"metrics": ["revenue"], "grain": "month", "range": SPRING}
ORACLE: Final = """
SELECT sales_channel, sum(amount), count(order_id)
FROM orders
WHERE ordered_on >= DATE '2024-03-10' AND ordered_on < DATE '2024-04-20'
  AND (order_status IS NULL OR order_status <> 'cancelled')
GROUP BY sales_channel
ORDER BY sales_channel NULLS LAST
"""


class Deployed(NamedTuple):
    """One source kind's deployment of the example: its settings and the secrets it reads."""

    config: Path
    secrets: dict[str, str]


class Example(NamedTuple):
    root: Path
    database: Path


def _settings(directory: Path, catalog: Path, source: dict[str, Any]) -> Path:
    directory.mkdir()
    document = {
        "catalog": {"dir": str(catalog), "version": "example-1"},
        "sources": {"main": source},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (directory / "base.yaml").write_text(json.dumps(document, indent=2), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Example:
    """The example with the conformance pack's rows: the rows the Spark test server holds."""
    root = tmp_path_factory.mktemp("exact-example")
    write_example(root / "example", orders=ORDERS)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    return Example(root, database)


@pytest.fixture(
    scope="module",
    params=[
        "duckdb",
        "files",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("spark", marks=pytest.mark.spark),
    ],
)
def deployed(request: pytest.FixtureRequest, example: Example) -> Iterator[Deployed]:
    """The example on each source kind."""
    kind: str = request.param
    catalog = example.root / "example" / CATALOG
    where = example.root / kind
    match kind:
        case "duckdb":
            source: dict[str, Any] = {"kind": "duckdb", "path": str(example.database)}
            yield Deployed(_settings(where, catalog, source), {})
        case "files":
            files = example.root / "files-data"
            files.mkdir(exist_ok=True)
            with duckdb.connect(str(example.database), read_only=True) as local:
                for (table,) in local.execute("SHOW TABLES").fetchall():
                    target = files / f"{table}.parquet"
                    local.execute(f"COPY \"{table}\" TO '{target}' (FORMAT PARQUET)")
            yield Deployed(_settings(where, catalog, {"kind": "duckdb", "path": str(files)}), {})
        case "postgres":
            dsn: str = request.getfixturevalue("postgres_dsn")
            with scratch_database(dsn) as scratch:
                copy_from_duckdb(example.database, scratch, example.root)
                source = scratch.source_settings(PASSWORD_VAR, pool_size=2)
                secrets = {PASSWORD_VAR: scratch.reader_password}
                yield Deployed(_settings(where, catalog, source), secrets)
        case "spark":
            remote = require_server()
            load_tables(example.database, remote)
            yield Deployed(_settings(where, catalog, {"kind": "spark", "remote": remote}), {})
        case _:
            raise AssertionError(kind)


def _oracle(example: Example) -> list[list[str | None]]:
    with duckdb.connect(str(example.database), read_only=True) as local:
        return [[cell_text(v) for v in row] for row in local.execute(ORACLE).fetchall()]


def _structured(document: Any) -> str:
    """A structured half as compact JSON, without the instant it was computed."""
    return unclocked(json.dumps(document, separators=(",", ":")))


def test_the_python_api_answers_exactly_the_days_asked_and_states_a_widened_range(
    deployed: Deployed, example: Example
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(deployed.config), **deployed.secrets}
    asked = [api.question(EXACT).unwrap(), api.question(WIDENED).unwrap()]
    exact, widened = api.ask(asked, deployed.config, environ=environ).unwrap()
    assert isinstance(exact, api.Answer) and isinstance(widened, api.Answer)
    assert exact.columns == ["channel", "revenue", "order_count"]
    assert exact.rows == _oracle(example)
    assert (exact.provenance.range_asked, exact.provenance.ranges) == ("", [])
    assert widened.provenance.range_asked == "2024-03-10/2024-04-20"
    assert widened.provenance.ranges == ["2024-03-01/2024-05-01"]
    text = halves_of(widened).text.split("\n")
    assert "range asked: 2024-03-10/2024-04-20\nrange: 2024-03-01/2024-05-01" in "\n".join(text)
    assert [row[0] for row in widened.rows] == ["2024-03-01", "2024-04-01"]


def test_the_command_line_asks_without_a_grain_when_none_is_given(
    deployed: Deployed, example: Example, capsys: pytest.CaptureFixture[str]
) -> None:
    wiring = Wiring({"SUTURA_CONFIG_DIR": str(deployed.config), **deployed.secrets})
    flags = ["--from", SPRING["start"], "--to", SPRING["end"]]
    code = run_cli(["query", "revenue", "order_count", *flags, "--by", "channel", "--json"], wiring)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    document = json.loads(out)
    assert document["columns"] == ["channel", "revenue", "order_count"]
    assert document["rows"] == _oracle(example)
    assert "range_asked" not in document["provenance"]
    code = run_cli(["query", "revenue", "--grain", "month", *flags, "--text"], wiring)
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    lines = out.split("\n")
    at = lines.index("range asked: 2024-03-10/2024-04-20")
    assert lines[at - 1] == "time zone: UTC" and lines[at + 1] == "range: 2024-03-01/2024-05-01"
    code = run_cli(["query", "revenue", *flags, "--trailing", "2"], wiring)
    _, err = capsys.readouterr()
    assert code == 2 and err.startswith("sutura: malformed question: $.window: needs a grain")


@pytest.mark.anyio
async def test_http_mcp_over_http_and_mcp_on_stdio_give_the_api_answer(
    deployed: Deployed,
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(deployed.config), **deployed.secrets}
    with anyio.fail_after(180):
        async with api.opened(deployed.config, environ=environ) as started_api:
            service = started_api.unwrap()
            replies = [
                await api.call(service, api.Capability.ASK_METRIC, q) for q in (EXACT, WIDENED)
            ]
        expected = [
            _structured(json.loads(r.halves.structured)) for r in replies if isinstance(r, Answered)
        ]
        assert len(expected) == 2
        async with (
            assembled(deployed.config, **deployed.secrets) as started,
            http_of(started.app, LEGACY) as http,
        ):
            v1 = [(await http.post("/v1/query", json=q)).json() for q in (EXACT, WIDENED)]
            async with mcp_client(http) as remote:
                over_http = [
                    structured_of(await remote.call_tool("ask_metric", q)) for q in (EXACT, WIDENED)
                ]
        async with spawned(deployed.config, **deployed.secrets) as session:
            await session.handshake()
            on_stdio = [
                (await session.request(i, "tools/call", name="ask_metric", arguments=q))["result"][
                    "structuredContent"
                ]
                for i, q in enumerate((EXACT, WIDENED), 1)
            ]
            assert await session.finish() == 0
    for surface in (v1, over_http, on_stdio):
        assert [_structured(document) for document in surface] == expected
