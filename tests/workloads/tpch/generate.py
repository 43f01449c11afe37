"""TPC-H data from ``tpchgen-cli`` (the dev extra), as one Parquet file per table.

The generator is the Rust port of the specification's ``dbgen``: its rows are the same at every
scale factor. Parquet keeps the generator's own types (``DECIMAL(15,2)``, ``DATE``), so no
value passes through text on the way to DuckDB.
"""

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

from tests.workloads.tpch.schema import TABLES

TEST_SCALE: Final = "0.01"
"""The tests' scale factor: 60,175 line items, 15,000 orders, 1,500 customers, 100 suppliers.
Every query of :mod:`tests.workloads.tpch.queries` has a non-trivial answer there (Q5: five
nations; Q3 and Q10: full top lists), and generating it takes about a second of CPU."""

GENERATE_SECONDS: Final = 120


class GeneratorMissingError(Exception):
    """``tpchgen-cli`` is not installed (the message says how to install it)."""


def generator() -> Path:
    """The ``tpchgen-cli`` beside this interpreter, or on ``PATH``.

    Raises:
        GeneratorMissingError: neither has one.
    """
    beside = Path(sys.executable).parent / "tpchgen-cli"
    if beside.is_file():
        return beside
    found = shutil.which("tpchgen-cli")
    if found is None:
        raise GeneratorMissingError("tpchgen-cli is not installed: pip install -e '.[dev]'")
    return Path(found)


def generate(scale: str, target: Path, *, timeout_seconds: float = GENERATE_SECONDS) -> Path:
    """Generate every table at ``scale`` into ``target`` (created) as ``<table>.parquet``.

    Returns ``target``. Raises :class:`GeneratorMissingError` without the generator,
    ``subprocess.CalledProcessError`` (with the generator's own words) when it fails, and
    ``subprocess.TimeoutExpired`` past ``timeout_seconds``.
    """
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [str(generator()), "parquet", "--scale-factor", scale, "--output-dir", str(target)],
        check=True,
        capture_output=True,
        timeout=timeout_seconds,
    )
    missing = [t.name for t in TABLES if not (target / f"{t.name}.parquet").is_file()]
    if missing:
        raise FileNotFoundError(f"tpchgen-cli wrote no file for {', '.join(missing)}")
    return target
