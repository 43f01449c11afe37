"""Starting run_sql: a runner only when the tool is enabled, over a source it can read."""

from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from sutura.boundary.loading import load
from sutura.core.raw.outcome import RawRows
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Answered, NotOffered
from tests.services import call, problems_opening, serving
from tests.transports.mcp.configs import settings_document

pytestmark = pytest.mark.anyio

ENABLED = {"SUTURA__TOOLS__RUN_SQL__ENABLED": "true", "SUTURA__TOOLS__RUN_SQL__SOURCE": "main"}


def _environ(config: Path, **extra: str) -> dict[str, str]:
    return {"SUTURA_CONFIG_DIR": str(config), **extra}


async def test_the_runner_is_started_only_when_the_tool_is_enabled(
    example_dir: Path, tmp_path: Path
) -> None:
    config = settings_document(tmp_path / "config", example_dir, prose=None)
    async with serving(_environ(config), anchors=False) as off:
        assert not off.offers(Capability.RUN_SQL)
        refused = await call(off, Capability.RUN_SQL, {"statement": "SELECT 1"})
    assert refused == NotOffered(capability=Capability.RUN_SQL)
    async with serving(_environ(config, **ENABLED), anchors=False) as on:
        assert on.offers(Capability.RUN_SQL)
        reply = await call(
            on, Capability.RUN_SQL, {"statement": "SELECT count(*) AS n FROM orders"}
        )
    assert isinstance(reply, Answered) and isinstance(reply.value, RawRows)
    assert reply.value.columns == ["n"]


def test_a_source_run_sql_cannot_read_is_refused_before_anything_starts(
    example_dir: Path, tmp_path: Path
) -> None:
    config = settings_document(tmp_path, example_dir, prose=None)
    with (config / "base.yaml").open("a", encoding="utf-8") as document:
        document.write("  cluster:\n    kind: spark\n")
    environ = _environ(config, **{**ENABLED, "SUTURA__TOOLS__RUN_SQL__SOURCE": "cluster"})
    assert load(environ).failure() == [
        "settings: tools.run_sql.source: run_sql reads duckdb and postgres sources only"
    ]


@pytest.mark.postgres
async def test_a_postgres_role_that_may_read_server_files_stops_the_start(
    example_dir: Path, tmp_path: Path, postgres_dsn: str
) -> None:
    info = conninfo_to_dict(postgres_dsn)
    if info.get("password") is not None:
        pytest.skip("the test server's administrator needs a password; this test reads none")
    config = settings_document(tmp_path, example_dir, prose=None)
    with (config / "base.yaml").open("a", encoding="utf-8") as document:
        document.write(
            f"  admin:\n    kind: postgres\n    host: {info.get('host') or '127.0.0.1'}\n"
            f"    port: {info.get('port') or 5432}\n    database: {info.get('dbname')}\n"
            f"    user: {info.get('user') or 'postgres'}\n"
        )
    environ = _environ(config, **{**ENABLED, "SUTURA__TOOLS__RUN_SQL__SOURCE": "admin"})
    (problem,) = await problems_opening(environ, anchors=False)
    assert problem.startswith("settings: tools.run_sql.source: admin: the role ")
    assert "may read or write server files" in problem
