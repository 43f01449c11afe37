"""The jaffle shop built with dbt-duckdb from MetricFlow's environment, with a sutura settings
directory reading what it built: for the differential test and ``make bench``."""

import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Final, NamedTuple

import duckdb

from tests.workloads.jaffle_sl import PROJECT

STEP_SECONDS: Final = 300


class Built(NamedTuple):
    """The built project, the settings directory (source ``jaffle``), dbt's environment,
    MetricFlow's ``bin``, and the years the orders span (a half-open range of dates)."""

    project: Path
    config: Path
    env: dict[str, str]
    bin: Path
    span: tuple[date, date]


def run(argv: list[str], cwd: Path, env: dict[str, str], seconds: int) -> str:
    """``argv`` run to its end (bounded); its stdout, or an error holding its output's tail."""
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=seconds, check=False
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr)[-3000:]
        raise RuntimeError(f"{' '.join(argv[:3])} failed ({done.returncode}):\n{tail}")
    return done.stdout


def build(root: Path, metricflow_bin: Path) -> Built:
    """Generate the data with ``jafgen`` (beside this interpreter), then ``dbt deps``, ``dbt
    seed`` and ``dbt build`` under ``root``; a settings directory reads the DuckDB file."""
    project = root / "project"
    shutil.copytree(PROJECT, project)
    jafgen = Path(sys.executable).parent / "jafgen"
    run([str(jafgen), "1"], project, dict(os.environ), STEP_SECONDS)
    (project / "jaffle-data" / "raw_tweets.csv").unlink()  # no model reads it
    database = root / "jaffle.duckdb"
    (project / "profiles.yml").write_text(
        "jaffle_shop:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        f"      path: {database}\n      threads: 1\n"
        "flags:\n  send_anonymous_usage_stats: false\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "DBT_PROFILES_DIR": str(project),
        "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
        "DO_NOT_TRACK": "1",
    }
    # The raw tables are sources, not refs: seeded first, then the models built and tested
    # (parsing the project on the way: build writes target/semantic_manifest.json as parse does).
    for step in (["deps"], ["seed"], ["build", "--exclude-resource-type", "seed"]):
        run([str(metricflow_bin / "dbt"), *step], project, env, STEP_SECONDS)
    if not (project / "target" / "semantic_manifest.json").is_file():
        raise RuntimeError("dbt build wrote no target/semantic_manifest.json")
    with duckdb.connect(str(database), read_only=True) as connection:
        row = connection.execute("SELECT min(ordered_at), max(ordered_at) FROM orders").fetchone()
    if row is None or row[0] is None:
        raise RuntimeError("the jaffle shop has no orders")
    first, last = row[0].date(), row[1].date()
    config = root / "shop"
    config.mkdir()
    (config / "base.yaml").write_text(
        f"sources:\n  jaffle:\n    kind: duckdb\n    path: {database}\n"
        "security:\n  identity: single-user\n  single_user_because: the jaffle shop's runs\n",
        encoding="utf-8",
    )
    span = (date(first.year, 1, 1), date(last.year + 1, 1, 1))
    return Built(project, config, env, metricflow_bin, span)
