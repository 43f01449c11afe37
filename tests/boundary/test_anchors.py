"""Anchors at scale: metrics sharing a model, time column, grain and range are reproduced by
one statement per group of at most 16, the groups at once; a wrong anchor in a group is found
and reported exactly as when its metric is asked alone, and only it."""

from pathlib import Path

import anyio
import pytest
from returns.pipeline import is_successful

from sutura.boundary.anchors import GROUP_SIZE, groups
from sutura.boundary.loading import load
from sutura.boundary.startup import open_service
from tests.scale_catalog import metric_name, settings_text, write_scale_catalog

METRICS = 40


@pytest.fixture(scope="module")
def anchored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("anchored")
    return write_scale_catalog(target, metrics=METRICS, models=3, anchors=True, data=True)


def _problems(config: Path) -> list[str]:
    async def opened() -> list[str]:
        loaded = load({"SUTURA_CONFIG_DIR": str(config)})
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


def test_every_grouped_anchor_reproduces(anchored: Path) -> None:
    assert _problems(anchored) == []


def test_a_wrong_anchor_in_a_group_is_reported_alone_as_a_metric_asked_alone(
    anchored: Path, tmp_path: Path
) -> None:
    config = tmp_path / "wrong"
    (config / "catalog").mkdir(parents=True)
    wrong = metric_name(6)  # a sum, in the first group of its model
    for document in (anchored / "catalog").iterdir():
        text = document.read_text(encoding="utf-8")
        if document.name == f"{wrong}.md":
            text = text.replace("\n  value: ", "\n  value: 1", 1)
        (config / "catalog" / document.name).write_text(text, encoding="utf-8")
    database = (anchored / "data" / "scale.duckdb").resolve()
    (config / "base.yaml").write_text(settings_text(database), encoding="utf-8")
    right = (anchored / "catalog" / f"{wrong}.md").read_text(encoding="utf-8")
    value = right.split("\n  value: ", 1)[1].split("\n", 1)[0]
    assert _problems(config) == [
        f"anchor mismatch: metric {wrong}: expected 1{value}, found {value}"
    ]
