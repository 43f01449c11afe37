"""``make bench``'s dbt rows say why they are not measured where MetricFlow's environment is
absent, as every section whose engine is absent does (the rows themselves need minutes)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_dbt_rows_are_not_measured_without_metricflow() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SUTURA_BENCH": "dbt"}
    env["SUTURA_BENCH_SHORT"] = "1"
    env.pop("SUTURA_TEST_METRICFLOW", None)
    done = subprocess.run(
        [sys.executable, "-m", "bench"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "dbt: not measured: MetricFlow's environment is absent (SUTURA_TEST_METRICFLOW;"
        " scripts/metricflow-env DIR builds one)"
    )
