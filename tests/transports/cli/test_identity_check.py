"""``sutura check`` names every offending key of an unsafe identity on stderr."""

from pathlib import Path

import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli

SOURCE = "sources: {main: {kind: duckdb, path: x.duckdb}}\n"


def test_sutura_check_names_every_offending_key_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SOURCE + "security: {identity: multi-user, single_user_because: x}\n"
    (tmp_path / "base.yaml").write_text(text, encoding="utf-8")
    code = run_cli(["check"], Wiring({"SUTURA_CONFIG_DIR": str(tmp_path)}))
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert "security.single_user_because: only with identity single-user" in err
    assert "security.inbound: multi-user requires inbound token verification" in err
