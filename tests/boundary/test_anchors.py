"""Anchors at scale: metrics sharing a model, time column, grain and range are reproduced by
one statement per group of at most 16, the groups at once; a wrong anchor in a group is found
and reported exactly as when its metric is asked alone, and only it — on DuckDB and on
PostgreSQL (the same catalog over a copy of its data)."""

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from returns.pipeline import is_successful

from sutura.boundary.anchors import GROUP_SIZE, groups
from sutura.boundary.loading import load
from sutura.boundary.startup import open_service
from tests.postgres import copy_from_duckdb, scratch_database
from tests.scale_catalog import DATABASE, metric_name, settings_text, write_scale_catalog

METRICS = 40
PASSWORD_VAR = "SUTURA_TEST_ANCHORS_PASSWORD"


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("anchored")
    return write_scale_catalog(target, metrics=METRICS, models=3, anchors=True, data=True)


@pytest.fixture(
    scope="module", params=["duckdb", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def engine(
    request: pytest.FixtureRequest, anchored: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, dict[str, str]]]:
    """The anchored catalog's ``base.yaml`` over the engine, and the environment it needs: its
    DuckDB file, or a PostgreSQL copy of its tables."""
    if request.param == "duckdb":
        yield settings_text((anchored / DATABASE).resolve()), {}
        return
    dsn: str = request.getfixturevalue("postgres_dsn")
    with scratch_database(dsn) as scratch:
        copy_from_duckdb(anchored / DATABASE, scratch, tmp_path_factory.mktemp("anchors-pg"))
        source = (
            f"kind: postgres\nhost: {scratch.host}\nport: {scratch.port}\n"
            f"database: {scratch.database}\nuser: {scratch.reader}\n"
            f"password_env: {PASSWORD_VAR}\nsslmode: disable"
        )
        yield settings_text(source=source), {PASSWORD_VAR: scratch.reader_password}


def _config(target: Path, anchored: Path, engine: tuple[str, dict[str, str]]) -> Path:
    """``target`` holding the anchored catalog's documents, and its settings over ``engine``."""
    (target / "catalog").mkdir(parents=True)
    for document in (anchored / "catalog").iterdir():
        text = document.read_text(encoding="utf-8")
        (target / "catalog" / document.name).write_text(text, encoding="utf-8")
    (target / "base.yaml").write_text(engine[0], encoding="utf-8")
    return target


def _problems(config: Path, environ: dict[str, str] | None = None) -> list[str]:
    async def opened() -> list[str]:
        loaded = load({"SUTURA_CONFIG_DIR": str(config), **(environ or {})})
        assert is_successful(loaded), loaded.failure()
        with anyio.fail_after(120):
            async with open_service(loaded.unwrap(), anchors=True) as started:
                return [] if is_successful(started) else list(started.failure())

    return anyio.run(opened)


def test_the_anchors_are_grouped_by_model_time_column_grain_and_range(anchored: Path) -> None:
    loaded = load({"SUTURA_CONFIG_DIR": str(anchored)}).unwrap()
    metrics = [m for m in loaded.pinned.catalog.metrics if m.anchor is not None]
    chunks = groups(metrics)
    assert sorted(m.name for chunk in chunks for m in chunk) == sorted(m.name for m in metrics)
    assert all(1 <= len(chunk) <= GROUP_SIZE for chunk in chunks)
    assert all(len({(m.model, m.time_column) for m in chunk}) == 1 for chunk in chunks)
    # 40 metrics over 2 fact models: 20 each, so two statements of 16 and two of 4
    assert sorted(len(chunk) for chunk in chunks) == [4, 4, 16, 16]


def test_every_grouped_anchor_reproduces(
    anchored: Path, engine: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    assert _problems(_config(tmp_path / "right", anchored, engine), engine[1]) == []


def test_a_wrong_anchor_in_a_group_is_reported_alone_as_a_metric_asked_alone(
    anchored: Path, engine: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    config = _config(tmp_path / "wrong", anchored, engine)
    wrong = metric_name(6)  # a sum, in the first group of its model (16 anchors in one statement)
    document = config / "catalog" / f"{wrong}.md"
    right = document.read_text(encoding="utf-8")
    document.write_text(right.replace("\n  value: ", "\n  value: 1", 1), encoding="utf-8")
    value = right.split("\n  value: ", 1)[1].split("\n", 1)[0]
    assert _problems(config, engine[1]) == [
        f"anchor mismatch: metric {wrong}: expected 1{value}, found {value}"
    ]
