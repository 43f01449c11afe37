"""A certified number never depends on the host's time zone: every engine session is pinned to
``catalog.time_zone`` (UTC unless the operator says otherwise), and every answer states it."""

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.clock import unclocked

MODEL = """---
kind: model
name: events
source: main
table: events
columns:
  - name: happened_at
    type: TIMESTAMPTZ
  - name: amount
    type: INTEGER
---
"""
METRIC = """---
kind: metric
name: events_counted
model: events
measure:
  simple:
    aggregate: count
    column: amount
time_column: happened_at
grains: [month]
dimensions: []
audience: open
---
"""
# An instant late on 31 January in UTC is 1 February in Tokyo; one early on 1 February in UTC
# is still 31 January in Los Angeles.
INSTANTS = ("2024-01-31 23:30:00+00", "2024-02-01 03:00:00+00", "2024-03-01 00:30:00+00")
QUESTION = ["query", "events_counted", "--grain", "month", "--from", "2024-01-01"]
QUESTION += ["--to", "2024-04-01"]


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A deployment whose time column is a TIMESTAMPTZ."""
    root = tmp_path_factory.mktemp("zoned")
    (root / "catalog").mkdir()
    (root / "catalog" / "events.md").write_text(MODEL, encoding="utf-8")
    (root / "catalog" / "events_counted.md").write_text(METRIC, encoding="utf-8")
    with duckdb.connect(str(root / "events.duckdb")) as connection:
        connection.execute("CREATE TABLE events (happened_at TIMESTAMPTZ, amount INTEGER)")
        for instant in INSTANTS:
            connection.execute("INSERT INTO events VALUES (?::TIMESTAMPTZ, 1)", [instant])
    (root / "base.yaml").write_text(
        "catalog: {dir: catalog, version: z1}\n"
        "sources: {main: {kind: duckdb, path: events.duckdb}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n",
        encoding="utf-8",
    )
    return root


def _query(config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    script = [sys.executable, "-c", "import sys; from sutura.root import main; sys.exit(main())"]
    environ = {**os.environ, "SUTURA_CONFIG_DIR": str(config), **env}
    return subprocess.run(
        [*script, *QUESTION], env=environ, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_the_host_time_zone_changes_no_bucket_and_no_digest(config: Path) -> None:
    runs = [_query(config, TZ=zone) for zone in ("UTC", "Asia/Tokyo", "America/Los_Angeles")]
    assert [run.returncode for run in runs] == [0, 0, 0], runs[0].stderr
    outs = [unclocked(run.stdout) for run in runs]  # three processes, three computed_at
    assert outs[0] == outs[1] == outs[2]
    lines = runs[0].stdout.split("\n")
    assert lines[1:4] == ["2024-01-01\t1", "2024-02-01\t1", "2024-03-01\t1"]
    assert "time zone: UTC" in lines


@pytest.mark.slow
def test_the_catalog_time_zone_decides_the_buckets_and_is_stated_and_pinned(config: Path) -> None:
    utc = _query(config, TZ="Asia/Tokyo")
    pacific = _query(config, TZ="Asia/Tokyo", SUTURA__CATALOG__TIME_ZONE="America/Los_Angeles")
    assert pacific.returncode == 0, pacific.stderr
    lines = pacific.stdout.split("\n")
    assert lines[1:3] == ["2024-01-01\t2", "2024-02-01\t1"]
    assert "time zone: America/Los_Angeles" in lines
    digests = [
        next(line for line in run.stdout.split("\n") if line.startswith("definitions: "))
        for run in (utc, pacific)
    ]
    assert digests[0] != digests[1]


def test_a_time_zone_no_system_knows_stops_startup_naming_the_setting(config: Path) -> None:
    run = _query(config, SUTURA__CATALOG__TIME_ZONE="Mars/Olympus_Mons")
    assert run.returncode == 1 and run.stdout == ""
    assert "catalog.time_zone: 'Mars/Olympus_Mons' is not a time zone" in run.stderr
