"""Range and NULL filters, and a value no list names, through what a user touches: the Python
API, the command line (flags and JSON), HTTP, MCP over stdio (in process and spawned) and over
``/mcp``; on a DuckDB file, a directory of Parquet files and a directory of CSV files holding
the same rows (PostgreSQL and Spark: the conformance pack's ``filters_`` questions). Every
surface gives the same rows, equal to plain SQL over the data; a value of the wrong type is
malformed naming its field on every surface."""

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import anyio
import duckdb
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from sutura import api
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.core.tool.codec import halves_of
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.conformance.pack import EXTRA_CATALOG, add_pack_rows
from tests.transports.http.deployments import AUTH, TOKEN, assembled, client
from tests.transports.mcp.inprocess import connected, structured_of, wiring
from tests.transports.mcp.remote import http_of, mcp_client
from tests.transports.mcp.spawned import SUTURA, server_environment

QUESTION: Final[dict[str, Any]] = {
    "metrics": ["parcel_weight"],
    "grain": "quarter",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["channel"],
    "filters": [
        {"op": "between", "dimension": "weight", "low": "1.250", "high": 3},
        {"op": "ge", "dimension": "shipped_at", "value": "2024-03-01"},
        {"op": "lt", "dimension": "ship_hour", "value": 20},
        {"op": "is_not_null", "dimension": "carrier"},
    ],
}
FLAGS: Final = [
    "query", "parcel_weight", "--grain", "quarter", "--from", "2024-01-01", "--to", "2025-01-01",
    "--by", "channel", "--where-between", "weight", "1.250", "3",
    "--where", "shipped_at>=2024-03-01", "--where", "ship_hour<20", "--where-not-null", "carrier",
    "--text",
]  # fmt: skip
ORACLE: Final = """
SELECT CAST(date_trunc('quarter', o.ordered_on) AS DATE), o.sales_channel,
       CAST(sum(p.weight_kg) FILTER (WHERE p.carrier IS NOT NULL) AS VARCHAR)
FROM parcels AS p LEFT JOIN orders AS o ON o.order_id = p.order_id
WHERE o.ordered_on >= DATE '2024-01-01' AND o.ordered_on < DATE '2025-01-01'
  AND o.order_status IS DISTINCT FROM 'cancelled'
  AND p.weight_kg BETWEEN 1.25 AND 3 AND p.shipped_at >= TIMESTAMPTZ '2024-03-01 00:00:00+00'
  AND extract(hour FROM timezone('UTC', p.shipped_at)) < 20 AND p.carrier IS NOT NULL
GROUP BY 1, 2 ORDER BY 1, 2 NULLS LAST
"""
WRONG_TYPE: Final[dict[str, Any]] = {
    **QUESTION,
    "filters": [{"op": "ge", "dimension": "shipped_at", "value": 2024}],
}
FIELD: Final = "$.filters[0].value"
KINDS: Final = ("duckdb", "parquet", "csv")
TABLES: Final = ("orders", "customers", "parcels", "scans", "balances")


def _write(root: Path, kind: str, database: Path) -> Path:
    """A settings directory serving the example and the pack's metrics from ``kind``."""
    config = root / kind
    shutil.copytree(database.parent.parent / CATALOG, config / CATALOG)
    if kind == "duckdb":
        path = str(database)
    else:
        path = str(config / "data")
        (config / "data").mkdir()
        with duckdb.connect(str(database), read_only=True) as connection:
            connection.execute("SET TimeZone = 'UTC'")
            for table in TABLES:
                target = config / "data" / f"{table}.{kind}"
                connection.execute(f"COPY {table} TO '{target}' (FORMAT {kind})")
    document = {
        "catalog": {"dir": str(CATALOG), "version": "example-1"},
        "sources": {"main": {"kind": "duckdb", "path": path}},
        "security": {
            "identity": "single-user",
            "single_user_because": "one user runs the tests",
            "access_token": TOKEN,
        },
    }
    (config / "base.yaml").write_text(json.dumps(document), encoding="utf-8")
    return config


@pytest.fixture(scope="module")
def deployments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """The example (1,500 orders) with the pack's rows and metrics, as each source kind."""
    root = tmp_path_factory.mktemp("filters")
    write_example(root / "example", orders=1500)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    for document in EXTRA_CATALOG.glob("*.md"):
        shutil.copy(document, root / "example" / CATALOG / document.name)
    yield {kind: _write(root, kind, database) for kind in KINDS}


@pytest.fixture(scope="module")
def expected(deployments: dict[str, Path]) -> list[list[str | None]]:
    database = deployments["duckdb"].parent / "example" / DATABASE
    with duckdb.connect(str(database), read_only=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        rows = [[str(r[0]), r[1], r[2]] for r in connection.execute(ORACLE).fetchall()]
    assert rows  # the filters keep some rows, and drop others
    return rows


def _text(answer: api.Answer) -> str:
    """The text half up to its row count (the provenance after it names the run's instant)."""
    return halves_of(answer).text.split("\n\\. rows:")[0]


@pytest.mark.parametrize("kind", KINDS)
def test_the_python_api_and_the_command_line_give_the_rows_plain_sql_gives(
    kind: str,
    deployments: dict[str, Path],
    expected: list[list[str | None]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = deployments[kind]
    (answer, wrong) = api.ask(
        [api.question(QUESTION).unwrap(), api.question(WRONG_TYPE).unwrap()], config
    ).unwrap()
    assert isinstance(answer, api.Answer) and answer.rows == expected
    assert isinstance(wrong, api.QuestionError) and wrong.field == FIELD
    environ = Wiring({"SUTURA_CONFIG_DIR": str(config)})
    assert run_cli(FLAGS, environ) == 0
    flagged, _ = capsys.readouterr()
    assert flagged.startswith(_text(answer) + "\n")
    asked = ["query", "--question", json.dumps(QUESTION), "--text"]
    assert run_cli(asked, environ) == 0
    assert capsys.readouterr()[0] == flagged
    assert run_cli(["query", "--question", json.dumps(WRONG_TYPE)], environ) == 2
    out, err = capsys.readouterr()
    assert not out and f"malformed question: {FIELD}: expected a timestamp" in err
    assert "2024" not in err.replace("2024-", "")  # the value is never echoed


@pytest.mark.anyio
@pytest.mark.parametrize("kind", KINDS)
async def test_http_and_mcp_over_stdio_and_over_mcp_give_the_same_rows(
    kind: str, deployments: dict[str, Path], expected: list[list[str | None]]
) -> None:
    config = deployments[kind]
    with anyio.fail_after(120):
        async with connected(wiring(config)) as stdio:
            over_stdio = await stdio.call_tool("ask_metric", QUESTION)
            with pytest.raises(MCPError) as wrong_stdio:
                await stdio.call_tool("ask_metric", WRONG_TYPE)
        async with assembled(config) as started, client(started.app) as http:
            answered = await http.post("/v1/query", json=QUESTION, headers=AUTH)
            refused = await http.post("/v1/query", json=WRONG_TYPE, headers=AUTH)
            async with http_of(started.app, AUTH) as over, mcp_client(over) as remote:
                over_mcp = await remote.call_tool("ask_metric", QUESTION)
                with pytest.raises(MCPError) as wrong_mcp:
                    await remote.call_tool("ask_metric", WRONG_TYPE)
    assert answered.status_code == 200 and answered.json()["rows"] == expected
    assert refused.status_code == 400
    assert refused.json()["detail"].startswith(f"malformed question: {FIELD}: ")
    for result in (over_stdio, over_mcp):
        assert not result.is_error and structured_of(result)["rows"] == expected
    for raised in (wrong_stdio, wrong_mcp):
        assert raised.value.code == -32602
        assert raised.value.message.startswith(f"malformed question: {FIELD}: ")


@pytest.mark.anyio
@pytest.mark.slow
async def test_the_spawned_stdio_server_gives_the_same_rows_and_names_the_field(
    deployments: dict[str, Path], expected: list[list[str | None]]
) -> None:
    config = deployments["parquet"]
    params = StdioServerParameters(
        command=str(SUTURA), args=["mcp"], env=server_environment(config)
    )
    with anyio.fail_after(120):
        async with Client(params) as stdio:
            answered = await stdio.call_tool("ask_metric", QUESTION)
            with pytest.raises(MCPError) as wrong:
                await stdio.call_tool("ask_metric", WRONG_TYPE)
    assert not answered.is_error and structured_of(answered)["rows"] == expected
    assert wrong.value.code == -32602
    assert wrong.value.message.startswith(f"malformed question: {FIELD}: ")
