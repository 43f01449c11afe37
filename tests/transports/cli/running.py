"""A command run in this process, as ``sutura`` would run it over a settings directory."""

from pathlib import Path

import pytest

from sutura.root import Wiring
from sutura.transports.cli.main import run_cli


def run_in_process(
    argv: list[str], config: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of ``sutura ARGV`` with ``SUTURA_CONFIG_DIR=config``."""
    code = run_cli(argv, Wiring({"SUTURA_CONFIG_DIR": str(config)}))
    out, err = capsys.readouterr()
    return code, out, err
