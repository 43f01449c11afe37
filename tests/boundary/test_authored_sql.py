"""Authored SQL is loaded and pinned, and every source refuses it at startup, naming the file,
the line and the key — before any source is opened, so no kind of source ever sees it."""

from pathlib import Path

import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli
from tests.edited_example import edited_example
from tests.services import problems_opening

AUTHORED = "authored_sql: SELECT * FROM orders WHERE amount > 0\n"
SOURCES = {
    "duckdb": "{kind: duckdb, path: main.duckdb}",
    "postgres": "{kind: postgres, host: 127.0.0.1, port: 1, database: shop}",
    "spark": "{kind: spark, remote: 'sc://127.0.0.1:1'}",
}


def _authored(name: str, text: str) -> str:
    if name == "orders.md":
        return text.replace("primary_key: order_id\n", "primary_key: order_id\n" + AUTHORED)
    if name == "revenue.md":
        return text.replace("audience: open\n", "audience: open\n" + AUTHORED)
    return text


def _config(example_dir: Path, target: Path, source: str) -> Path:
    base = f"catalog: {{dir: catalog, version: t}}\nsources:\n  main: {source}\n"
    base += "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    return edited_example(example_dir, target, _authored, base)


@pytest.mark.anyio
@pytest.mark.parametrize("kind", list(SOURCES))
async def test_every_kind_of_source_refuses_authored_sql_at_startup_naming_file_and_key(
    example_dir: Path, tmp_path: Path, kind: str
) -> None:
    config = _config(example_dir, tmp_path, SOURCES[kind])
    problems = await problems_opening({"SUTURA_CONFIG_DIR": str(config)}, anchors=False)
    refusal = (
        f"the source 'main' ({kind}) does not run authored SQL: sutura runs only the statements"
        " it compiles from a definition, every value bound; remove authored_sql"
    )
    line = _line(config / "catalog" / "revenue.md")
    assert problems[1:] == [
        f"orders.md:7: authored_sql: {refusal}",
        f"revenue.md:{line}: authored_sql: {refusal}",
    ]
    assert problems[0].startswith(f"catalog {config / 'catalog'}: 2 problems")


def _line(path: Path) -> int:
    return path.read_text(encoding="utf-8").split("\n").index(AUTHORED.rstrip("\n")) + 1


def test_sutura_check_refuses_authored_sql_and_the_catalog_still_loads(
    example_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(example_dir, tmp_path, "{kind: duckdb, path: main.duckdb}")
    wiring = Wiring({"SUTURA_CONFIG_DIR": str(config)})
    assert run_cli(["check"], wiring) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "sutura: orders.md:7: authored_sql: the source 'main' (duckdb) does not run" in err
    assert run_cli(["describe", "revenue"], wiring) == 0
    assert '"authored_sql": "SELECT * FROM orders WHERE amount > 0"' in capsys.readouterr().out
    assert run_cli(["catalog"], wiring) == 0
    assert "authored_sql" not in capsys.readouterr().out
