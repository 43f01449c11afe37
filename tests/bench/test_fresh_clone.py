"""``make bench`` on a fresh clone: a section whose engine or extra is absent prints
``not measured: <reason>``, the rest of the table still prints, and the run exits 0.

The Spark extra is made unimportable for the child process by a ``pyspark`` package that
refuses to import, first on its path (what a clone without ``sutura[spark]`` sees); the render
section runs in the bench's short mode, so the table has rows.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
def test_an_absent_extra_is_not_measured_and_the_table_still_prints(tmp_path: Path) -> None:
    blocked = tmp_path / "pyspark"
    blocked.mkdir()
    (blocked / "__init__.py").write_text(
        'raise ImportError("No module named pyspark (blocked by the test)")\n', encoding="utf-8"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "SUTURA_BENCH": "render,spark",
        "SUTURA_BENCH_SHORT": "1",
    }
    env.pop("SUTURA_BENCH_SPARK", None)
    done = subprocess.run(
        [sys.executable, "-m", "bench"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["area", "measure", "ours"]
    rendered = [line for line in lines if line.startswith("render ")]
    assert len(rendered) == 4, done.stdout
    assert lines[-1].startswith("spark: not measured: the Spark Connect client is not installed")
    assert "blocked by the test" in lines[-1]


@pytest.mark.slow
def test_a_broken_section_fails_the_run(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SUTURA_BENCH": "render,nonexistent"}
    env["SUTURA_BENCH_SHORT"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "bench"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert len([line for line in done.stdout.splitlines() if line.startswith("render ")]) == 4
    assert done.stdout.splitlines()[-1].startswith("nonexistent: failed (No module named")
