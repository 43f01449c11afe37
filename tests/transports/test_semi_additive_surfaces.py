"""A semi-additive measure through what a user touches, on a DuckDB file and on a directory of
CSV and Parquet files: each buyer's spend on their last day of the month (``closing_spend``)
beside revenue, asked through the Python API, the CLI and stdio MCP, equal on both sources and
to what a hand-written query computes from the rows; a window over it is refused for its reason
on every surface."""

import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest

from sutura import api
from sutura.boundary.example import CATALOG, DATABASE, write_example
from sutura.core.sql.cells import cell_text
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.conformance.pack import EXTRA_CATALOG, add_pack_rows
from tests.transports.mcp.inprocess import connected, structured_of, wiring

QUESTION: dict[str, Any] = {
    "metrics": ["closing_spend", "revenue"],
    "grain": "month",
    "range": {"start": "2024-01-01", "end": "2024-04-01"},
    "dimensions": ["channel"],
}
WINDOWED: dict[str, Any] = {**QUESTION, "window": {"running": True}}

# Each buyer's orders (not cancelled) on their last day of the month, every order of that day.
HAND_WRITTEN = """
WITH kept AS (
    SELECT CAST(date_trunc('month', ordered_on) AS DATE) AS period, customer_id, ordered_on,
           sales_channel, amount
    FROM orders
    WHERE ordered_on >= DATE '2024-01-01' AND ordered_on < DATE '2024-04-01'
      AND order_status IS DISTINCT FROM 'cancelled'
)
SELECT period, sales_channel, sum(amount) FILTER (WHERE ordered_on = (
    SELECT max(k.ordered_on) FROM kept AS k
    WHERE k.period = kept.period AND k.customer_id IS NOT DISTINCT FROM kept.customer_id))
FROM kept GROUP BY 1, 2 ORDER BY 1, 2 NULLS LAST
"""


def _settings(directory: Path, catalog: Path, path: Path) -> Path:
    directory.mkdir()
    document = {
        "catalog": {"dir": str(catalog), "version": "semi-1"},
        "sources": {"main": {"kind": "duckdb", "path": str(path)}},
        "security": {"identity": "single-user", "single_user_because": "one user runs the tests"},
    }
    (directory / "base.yaml").write_text(json.dumps(document), encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A config over the example's DuckDB file, one over a directory holding its tables as
    files (the orders as CSV, the rest as Parquet), and the database itself."""
    root = tmp_path_factory.mktemp("semi")
    write_example(root / "example", orders=1500)
    database = root / "example" / DATABASE
    add_pack_rows(database)
    catalog = root / "example" / CATALOG
    for document in EXTRA_CATALOG.glob("*.md"):
        shutil.copy(document, catalog / document.name)
    files = root / "files"
    files.mkdir()
    with duckdb.connect(str(database), read_only=True) as connection:
        connection.execute("SET TimeZone = 'UTC'")
        for (table,) in connection.execute("SHOW TABLES").fetchall():
            kind = "(FORMAT csv, HEADER)" if table == "orders" else "(FORMAT parquet)"
            suffix = "csv" if table == "orders" else "parquet"
            connection.execute(f"COPY {table} TO '{files / f'{table}.{suffix}'}' {kind}")
    on_file = _settings(root / "on-file", catalog, database)
    on_files = _settings(root / "on-files", catalog, files)
    return on_file, on_files, database


def _hand_written(database: Path) -> list[list[str | None]]:
    with duckdb.connect(str(database), read_only=True) as connection:
        rows = connection.execute(HAND_WRITTEN).fetchall()
    return [[cell_text(value) for value in row] for row in rows]


def test_the_api_and_the_cli_answer_a_balance_alike_on_a_file_and_on_files(
    configs: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    on_file, on_files, database = configs
    expected = _hand_written(database)
    answers = []
    for config in (on_file, on_files):
        asked = [api.question(QUESTION).unwrap(), api.question(WINDOWED).unwrap()]
        answer, windowed = api.ask(asked, config).unwrap()
        assert isinstance(answer, api.Answer), answer
        assert [row[:3] for row in answer.rows] == expected
        assert isinstance(windowed, api.Refused)
        assert windowed.reason.code.value == "window_not_additive"
        answers.append(answer.rows)
    assert answers[0] == answers[1]
    code = run_cli(
        ["query", "--question", json.dumps(QUESTION), "--format", "json"],
        Wiring({"SUTURA_CONFIG_DIR": str(on_files)}),
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["rows"] == answers[0]
    code = run_cli(
        ["query", "--question", json.dumps(WINDOWED)], Wiring({"SUTURA_CONFIG_DIR": str(on_files)})
    )
    out, _ = capsys.readouterr()
    assert code == 1 and "window_not_additive" in out


@pytest.mark.anyio
async def test_stdio_mcp_answers_the_balance_on_files_as_the_hand_written_query(
    configs: tuple[Path, Path, Path],
) -> None:
    _, on_files, database = configs
    expected = await anyio.to_thread.run_sync(_hand_written, database)
    with anyio.fail_after(60):
        async with connected(wiring(on_files)) as mcp:
            answered = structured_of(await mcp.call_tool("ask_metric", QUESTION))
            refused = structured_of(await mcp.call_tool("ask_metric", WINDOWED))
    assert answered["outcome"] == "answer"
    assert [row[:3] for row in answered["rows"]] == expected
    assert refused["outcome"] == "refusal"
    assert refused["reason"]["code"] == "window_not_additive"


MIXED: dict[str, Any] = {
    "metrics": ["cancellation_rate", "closing_spend", "orders_per_signup"],
    "grain": "quarter",
    "range": {"start": "2023-01-01", "end": "2024-01-01"},
    "dimensions": ["region"],
}


def test_metrics_on_metrics_beside_a_balance_are_answered_alike_on_a_file_and_on_files(
    configs: tuple[Path, Path, Path],
) -> None:
    """A scaled ratio over a derived metric, a balance and a ratio over a metric of another
    model, in one question: three grouped halves joined, the same on both sources."""
    on_file, on_files, _ = configs
    answers = []
    for config in (on_file, on_files):
        (answer,) = api.ask([api.question(MIXED).unwrap()], config).unwrap()
        assert isinstance(answer, api.Answer), answer
        answers.append(answer.rows)
    assert answers[0] == answers[1]
    assert {row[0] for row in answers[0]} == {
        "2023-01-01",
        "2023-04-01",
        "2023-07-01",
        "2023-10-01",
    }
    assert all(row[2] is not None and row[3] is not None for row in answers[0])
