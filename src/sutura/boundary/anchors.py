"""Every anchor reproduced at startup: grouped into few statements, run concurrently.

An anchor is a metric's known value over one range. Metrics that share a model, a time column,
a coarsest grain and an anchor range are asked as one question (at most 16 metrics, the most a
question names), so a catalog of thousands of anchored metrics costs one statement per group,
not one per metric; the groups run at once, at most ``server.max_concurrent_queries`` of them
(the most questions the server ever runs at once). A metric whose value in its group's answer is
not its anchor — or a group the catalog cannot ask as one question — is asked again alone, so a
mismatch is reported exactly as a metric asked alone finds it. Problems come in catalog order.
"""

from collections.abc import Sequence
from typing import Final, assert_never

import anyio

from sutura.boundary.service import Service
from sutura.core.definitions.model import Metric
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.question import Question, QuestionError, Range

GROUP_SIZE: Final = 16
"""The most metrics one anchor statement reproduces (the most one question names)."""


async def anchor_problems(service: Service) -> list[str]:
    """Every anchor re-executed; one sentence per anchor that did not reproduce."""
    anchored = [metric for metric in service.pinned.catalog.metrics if metric.anchor is not None]
    found: dict[str, str] = {}
    limiter = anyio.CapacityLimiter(service.settings.server.max_concurrent_queries)
    async with anyio.create_task_group() as group:
        for chunk in groups(anchored):
            group.start_soon(_reproduce, service, chunk, found, limiter)
    problems: list[str] = []
    for metric in anchored:
        assert metric.anchor is not None
        if found[metric.name] != metric.anchor.value:
            problems.append(
                f"anchor mismatch: metric {metric.name}: expected {metric.anchor.value}, "
                f"found {found[metric.name]}"
            )
    return problems


def groups(anchored: Sequence[Metric]) -> list[list[Metric]]:
    """The anchored metrics in groups one statement can reproduce (same model, time column,
    coarsest grain and range), at most :data:`GROUP_SIZE` each, in catalog order."""
    keyed: dict[tuple[object, ...], list[Metric]] = {}
    for metric in anchored:
        anchor = metric.anchor
        assert anchor is not None
        key = (metric.model, metric.time_column, metric.coarsest_grain, anchor.start, anchor.end)
        keyed.setdefault(key, []).append(metric)
    return [
        metrics[start : start + GROUP_SIZE]
        for metrics in keyed.values()
        for start in range(0, len(metrics), GROUP_SIZE)
    ]


async def _reproduce(
    service: Service, chunk: list[Metric], found: dict[str, str], limiter: anyio.CapacityLimiter
) -> None:
    deadline = service.settings.limits.deadline_seconds
    async with limiter:
        if len(chunk) > 1:
            outcome = await service.answer(_question(chunk), deadline)
            values = _values(chunk, outcome)
            for metric in chunk:
                assert metric.anchor is not None
                if values.get(metric.name) == metric.anchor.value:
                    found[metric.name] = metric.anchor.value
        for metric in chunk:
            if metric.name not in found:  # alone: as asked alone, with its own finding
                alone = await service.answer(_question([metric]), deadline)
                found[metric.name] = _found(metric, alone)


def _question(metrics: Sequence[Metric]) -> Question:
    anchor = metrics[0].anchor
    assert anchor is not None  # only anchored metrics are asked
    return Question(
        metrics=[metric.name for metric in metrics],
        grain=metrics[0].coarsest_grain,
        range=Range(start=anchor.start, end=anchor.end),
    )


def _values(metrics: Sequence[Metric], outcome: Answer | Refused | QuestionError) -> dict[str, str]:
    """Each metric's value in a one-period answer to the group's question (none otherwise)."""
    match outcome:
        case Answer(columns=columns, rows=[row]) if len(row) == len(metrics) + 1:
            return {
                name: value
                for name, value in zip(columns[1:], row[1:], strict=True)
                if isinstance(value, str)
            }
        case _:
            return {}


def _found(metric: Metric, outcome: Answer | Refused | QuestionError) -> str:
    match outcome:
        case Answer(rows=[[_, str() as value]]):
            return value
        case Answer(rows=rows):
            grain = metric.coarsest_grain.value
            return f"{len(rows)} periods at grain {grain} (an anchor covers exactly one)"
        case Refused(reason=reason):
            return f"a refusal ({reason.code.value})"
        case QuestionError() as error:
            return error.sentence()
        case _:
            assert_never(outcome)
