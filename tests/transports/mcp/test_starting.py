"""The start of ``sutura mcp``: its warm-up loads each source's SQL dialect by compiling one
question per source, not one per metric (2,000 metrics took 2.9 s to warm, now 40 ms)."""

from pathlib import Path

import pytest
from returns.pipeline import is_successful

from sutura.boundary.loading import Loaded, load
from sutura.core.definitions.model import Metric
from sutura.core.nouns.question import Question
from sutura.core.sql import planning
from sutura.transports.mcp import starting
from tests.scale_catalog import write_scale_catalog


def _loaded(target: Path, metrics: int) -> Loaded:
    config = write_scale_catalog(target, metrics=metrics, models=3)
    return load({"SUTURA_CONFIG_DIR": str(config)}).unwrap()


def _planned(loaded: Loaded, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Each question the warm-up planned: its metric, and whether it compiled."""
    planned: list[tuple[str, bool]] = []
    plan = planning.plan_question

    def counted(*args: object, **kwargs: object) -> object:
        result = plan(*args, **kwargs)  # type: ignore[arg-type]
        planned.append((args[0].metrics[0], is_successful(result)))  # type: ignore[attr-defined]
        return result

    monkeypatch.setattr(planning, "plan_question", counted)  # read by the warm-up when it runs
    starting.warm(loaded)
    return planned


def test_the_warm_up_compiles_one_question_per_source_however_many_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = _loaded(tmp_path, metrics=300)
    assert list(loaded.loaded.settings.sources) == ["main"]  # one source: one question
    first = loaded.pinned.catalog.metrics[0]
    assert _planned(loaded, monkeypatch) == [(first.name, True)]


def test_a_metric_whose_question_does_not_compile_leaves_its_source_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = _loaded(tmp_path, metrics=5)
    first, second = loaded.pinned.catalog.metrics[:2]
    probe = starting._probe

    def unknown_first(metric: Metric) -> Question:
        question = probe(metric)
        return (
            question
            if metric is not first
            else Question(metrics=["no_such_metric"], grain=question.grain, range=question.range)
        )

    monkeypatch.setattr(starting, "_probe", unknown_first)
    assert _planned(loaded, monkeypatch) == [("no_such_metric", False), (second.name, True)]
