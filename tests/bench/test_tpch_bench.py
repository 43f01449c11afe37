"""The TPC-H bench section: every official query timed on a DuckDB file generated once into the
cache directory and kept there; without the generator the section says it is not measured."""

import sys
from pathlib import Path

import pytest

from bench import __main__ as bench_main
from bench import tpch
from tests.workloads.tpch.generate import GeneratorMissingError, generator
from tests.workloads.tpch.queries import QUERIES


def test_without_the_generator_the_section_is_not_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("SUTURA_BENCH", "tpch")
    monkeypatch.setenv(tpch.CACHE_VAR, str(tmp_path / "cache"))
    monkeypatch.setattr(bench_main, "compiled_package", lambda: None)
    assert bench_main.main() == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "tpch: not measured: tpchgen-cli is not installed: pip install -e '.[dev]'"
    assert not (tmp_path / "cache" / "tpch-sf1.duckdb").exists()


@pytest.mark.slow
def test_every_official_query_is_timed_on_data_generated_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        generator()
    except GeneratorMissingError as missing:
        pytest.skip(str(missing))
    monkeypatch.setenv(tpch.CACHE_VAR, str(tmp_path))
    monkeypatch.setenv("SUTURA_BENCH_SHORT", "1")
    figures = tpch.measure()
    assert [f.measure.split()[0] for f in figures] == list(QUERIES)
    assert all(f.ours is None and f.reference > 0 and f.ratio is None for f in figures)
    database = tmp_path / f"tpch-sf{tpch.SHORT_SCALE}.duckdb"
    built = database.stat().st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == [database.name]
    tpch.measure()
    assert database.stat().st_mtime_ns == built
