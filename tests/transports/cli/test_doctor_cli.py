"""``sutura doctor`` through the command line: a healthy deployment, one whose source cannot be
reached, and the registration commands with this installation's absolute paths."""

import json
import shutil
import sys
from importlib import metadata
from pathlib import Path

import pytest

from sutura import __version__
from sutura.root import Wiring
from sutura.transports.cli.main import run_cli

UNREACHABLE_PORT = 18171  # this suite's own port range; nothing listens on it


def _doctor(environ: dict[str, str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = run_cli(["doctor"], Wiring(environ))
    out, err = capsys.readouterr()
    assert err == ""
    return code, out


def test_doctor_reports_a_healthy_deployment_and_how_to_register_it(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {"SUTURA_CONFIG_DIR": str(example_dir), "SUTURA__LIMITS__MEMORY_LIMIT": "3GB"}
    code, out = _doctor(environ, capsys)
    assert code == 0
    lines = out.split("\n")
    assert f"  sutura: {__version__}" in lines
    assert f"  duckdb: {metadata.version('duckdb')}" in lines
    assert f"  psycopg: {metadata.version('psycopg')}" in lines
    assert any(line.startswith("  python: 3.") for line in lines)
    config = example_dir.resolve()
    assert f"  base.yaml: found — {config / 'base.yaml'}" in lines
    assert f"  development.yaml: not found — {config / 'development.yaml'}" in lines
    # Variables are named, never their values (a variable may hold a secret).
    assert "  environment variables: found — SUTURA__LIMITS__MEMORY_LIMIT" in lines
    assert "3GB" not in out
    assert "  main (duckdb): reachable" in lines
    assert f"catalog: ok — 5 metrics, 2 models ({config / 'catalog'})" in lines
    assert "models and anchors: ok — every model checked, 2 anchors reproduced" in lines

    command = str(Path(sys.executable).with_name("sutura"))
    assert Path(command).is_file() and shutil.which(command) is not None
    env = f"--env SUTURA_CONFIG_DIR={config}"
    assert f"    claude mcp add --transport stdio {env} sutura -- {command} mcp" in lines
    start = lines.index(
        "  Claude Desktop — claude_desktop_config.json (Settings → Developer →"
        " Edit Config), then restart the app:"
    )
    end = lines.index("  Claude Code:")
    desktop = json.loads("\n".join(line.removeprefix("    ") for line in lines[start + 1 : end]))
    assert desktop == {
        "mcpServers": {
            "sutura": {
                "command": command,
                "args": ["mcp"],
                "env": {"SUTURA_CONFIG_DIR": str(config)},
            }
        }
    }
    cursor = lines[
        lines.index("  Cursor — .cursor/mcp.json in the project (or ~/.cursor/mcp.json):") + 1 :
    ]
    assert json.loads("\n".join(line.removeprefix("    ") for line in cursor)) == desktop


def test_doctor_names_an_unreachable_source_and_still_reports_the_rest(
    example_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    environ = {
        "SUTURA_CONFIG_DIR": str(example_dir),
        "SUTURA__SOURCES__MAIN__KIND": "postgres",
        "SUTURA__SOURCES__MAIN__PORT": str(UNREACHABLE_PORT),
    }
    code, out = _doctor(environ, capsys)
    assert code == 1
    lines = out.split("\n")
    assert "settings: ok" in lines
    assert (
        f"  main (postgres): NOT usable: source main: cannot connect to PostgreSQL at"
        f" 127.0.0.1:{UNREACHABLE_PORT}/postgres (details in the log)"
    ) in lines
    assert any(line.startswith("catalog: ok — 5 metrics") for line in lines)
    assert not any(line.startswith("models and anchors:") for line in lines)
    assert "  Claude Code:" in lines


def test_doctor_reports_settings_that_do_not_load(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "base.yaml").write_text("sources:\n  main:\n    kind: sqlite\n", encoding="utf-8")
    code, out = _doctor({"SUTURA_CONFIG_DIR": str(tmp_path)}, capsys)
    assert code == 1
    assert "settings: problems" in out.split("\n")
    assert "register with agents:" in out
