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
    named = [f.measure.split(" at ")[0] for f in figures]
    assert [n.split()[0] for n in named] == [q for q in QUERIES for _ in range(1 + (q == "Q6"))]
    asked = set(tpch.sutura_questions())
    assert asked == {"Q1", "Q3", "Q5", "Q6", "Q6 ranges", "Q10", "Q12", "Q14"}
    for name, figure in zip(named, figures, strict=True):
        assert figure.reference > 0
        mine = name in asked
        assert (figure.ours is not None and figure.ours > 0) is mine
        assert (figure.ratio is None) is not mine
    database = tmp_path / f"tpch-sf{tpch.SHORT_SCALE}.duckdb"
    built = database.stat().st_mtime_ns
    assert sorted(p.name for p in tmp_path.iterdir()) == [database.name]
    tpch.measure()
    assert database.stat().st_mtime_ns == built
