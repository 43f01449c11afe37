"""Non-finite numbers from the raw SQL tool, on DuckDB and PostgreSQL: ``NaN``, ``Infinity`` and
``-Infinity`` on both halves whatever the column's type, and each read back by the engine as
the value it came from (docs/raw-sql.md, docs/text-format.md)."""

import json
import math
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, Final

import httpx
import psycopg
import pytest

from sutura.core.text.escape import escape_cell
from tests.postgres import scratch_database
from tests.transports.http.deployments import AUTH, assembled, client, write_deployment
from tests.transports.mcp.remote import LEGACY

pytestmark = pytest.mark.anyio

RUN_SQL: Final = "tools:\n  run_sql:\n    enabled: true\n    source: main\n"
PASSWORD_VAR: Final = "SUTURA_NON_FINITE_TEST_PASSWORD"
DUCKDB_SOURCE: Final = "  main:\n    kind: duckdb\n    path: cells.duckdb\n"

FLOATING: Final = ("DOUBLE PRECISION", "REAL")
EXACT: Final = {"duckdb": (), "postgres": ("NUMERIC",)}
"""Exact types that hold non-finite values (PostgreSQL's ``numeric`` does; DuckDB's
``DECIMAL`` does not)."""
SPELLINGS: Final = ("NaN", "Infinity", "-Infinity")
WRITTEN_BY_THE_ENGINE: Final = ("nan", "inf", "-inf", "NaN", "Infinity", "-Infinity")
"""How a statement may spell them; every spelling comes back as one of :data:`SPELLINGS`."""


@contextmanager
def _on(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    """A deployment with the raw tool on ``engine``; yields its environment's extras."""
    config = write_deployment(tmp_path, settings=RUN_SQL)
    if engine == "duckdb":
        yield {"SUTURA_CONFIG_DIR": str(config)}
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    with scratch_database(dsn) as scratch:
        with psycopg.connect(scratch.admin_dsn, autocommit=True) as admin:
            admin.execute("CREATE TABLE cells (day date, label text, units integer)")
            admin.execute("INSERT INTO cells VALUES ('2024-01-01', 'a', 1)")
            admin.execute(f'GRANT SELECT ON cells TO "{scratch.reader}"')
        source = f"  main: {json.dumps(scratch.source_settings(PASSWORD_VAR))}\n"
        settings = (config / "base.yaml").read_text(encoding="utf-8")
        (config / "base.yaml").write_text(settings.replace(DUCKDB_SOURCE, source), "utf-8")
        yield {"SUTURA_CONFIG_DIR": str(config), PASSWORD_VAR: scratch.reader_password}


@asynccontextmanager
async def _served(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[httpx.AsyncClient]:
    with _on(engine, tmp_path, request) as environ:
        config = Path(environ.pop("SUTURA_CONFIG_DIR"))
        async with assembled(config, **environ) as started, client(started.app) as http:
            yield http


def _statement(engine: str) -> tuple[str, list[str]]:
    """One statement selecting every spelling cast to every type, and its column names."""
    selected, names = [], []
    for kind in (*FLOATING, *EXACT[engine]):
        for i, spelled in enumerate(WRITTEN_BY_THE_ENGINE):
            if kind == "NUMERIC" and spelled in ("nan", "inf", "-inf"):
                continue  # PostgreSQL's numeric reads only the long spellings
            name = f"{kind.split()[0].lower()}_{i}"
            selected.append(f"CAST('{spelled}' AS {kind}) AS {name}")
            names.append(name)
    return "SELECT " + ", ".join(selected), names


async def _run_sql_both_halves(http: httpx.AsyncClient, statement: str) -> tuple[Any, str]:
    """The structured half of ``POST /v1/sql/run`` and the text half ``/mcp`` sends for the
    same statement."""
    structured = await http.post("/v1/sql/run", json={"statement": statement}, headers=AUTH)
    assert structured.status_code == 200, structured.text
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "run_sql", "arguments": {"statement": statement}},
    }
    mcp = await http.post("/mcp", json=call, headers={**AUTH, **LEGACY})
    assert mcp.status_code == 200, mcp.text
    result = mcp.json()["result"]
    assert result["structuredContent"] == structured.json()
    return structured.json(), result["content"][0]["text"]


def _same_value(text: str, written: str) -> bool:
    expected, read = float(written), float(text)
    return math.isnan(read) if math.isnan(expected) else read == expected


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_non_finite_numbers_are_one_spelling_on_both_halves_and_read_back_as_themselves(
    engine: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    statement, names = _statement(engine)
    async with _served(engine, tmp_path, request) as http:
        body, text = await _run_sql_both_halves(http, statement)
        ((*cells,),) = body["rows"]
        assert body["columns"] == names
        assert set(cells) <= set(SPELLINGS), cells
        # The text half carries the same cells, tab-separated on the one row line.
        assert "\t".join(escape_cell(c) for c in cells) in text.split("\n")
        for cell in SPELLINGS:
            for kind in (*FLOATING, *EXACT[engine]):
                again, _ = await _run_sql_both_halves(http, f"SELECT CAST('{cell}' AS {kind}) AS v")
                assert again["rows"] == [[cell]], (cell, kind)
    by_name = dict(zip(names, cells, strict=True))
    for kind in (*FLOATING, *EXACT[engine]):
        for i, spelled in enumerate(WRITTEN_BY_THE_ENGINE):
            name = f"{kind.split()[0].lower()}_{i}"
            if name in by_name:
                assert _same_value(by_name[name], spelled), (name, by_name[name])
                assert Decimal(by_name[name]).is_nan() == math.isnan(float(spelled))
