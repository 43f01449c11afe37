"""Kept resolutions over HTTP: a question is resolved once per caller's view, question and day,
and what one view or one question resolved is never what another gets.

Each test counts the resolutions the service makes (a spy around the one resolver), so the
keeping is seen to happen, and checks the answers themselves, so it is seen to be right."""

import datetime
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sutura.boundary import planning as planning_module
from sutura.boundary import startup as startup_module
from sutura.core.question.resolve import resolve_question
from tests.transports.http.deployments import assembled, client
from tests.transports.http.inbound_deployment import write_multi_user
from tests.transports.http.tokens import KeyPair, claims, mint
from tests.transports.mcp.inprocess import EXAMPLE_QUESTION

pytestmark = pytest.mark.anyio

PAIR = KeyPair("k1")
FINANCE = ["finance-team"]
STAFF = ["staff"]


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The first metric of every question the service resolves, in order."""
    seen: list[str] = []

    def spy(question: Any, *args: Any) -> Any:
        seen.append(question.metrics[0])
        return resolve_question(question, *args)

    monkeypatch.setattr(planning_module, "resolve_question", spy)
    yield seen


@pytest.fixture
async def http(example_dir: Path, tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    """The multi-user example (``return_rate`` restricted to finance), freshly started."""
    config = write_multi_user(tmp_path / "config", example_dir, PAIR)
    async with assembled(config) as started, client(started.app) as http:
        yield http


async def _ask(http: httpx.AsyncClient, groups: list[str], **changed: Any) -> httpx.Response:
    token = mint(PAIR, claims(groups=groups))
    headers = {"Authorization": f"Bearer {token}", "X-Request-Id": "probe"}
    return await http.post("/v1/query", json={**EXAMPLE_QUESTION, **changed}, headers=headers)


@pytest.mark.parametrize("finance_first", [True, False])
async def test_a_resolution_kept_for_one_audience_is_never_another_audiences(
    http: httpx.AsyncClient, resolved: list[str], finance_first: bool
) -> None:
    restricted = {"metrics": ["return_rate"]}
    order = [FINANCE, STAFF] if finance_first else [STAFF, FINANCE]
    for _ in range(2):
        replies = {tuple(groups): await _ask(http, groups, **restricted) for groups in order}
        answered, hidden = replies[tuple(FINANCE)], replies[tuple(STAFF)]
        missing = await _ask(http, STAFF, metrics=["nothing"])
        assert answered.status_code == 200, answered.text
        assert answered.json()["rows"]
        assert hidden.status_code == missing.status_code == 404
        assert hidden.content == missing.content
    # Each view resolved the question once (then kept it); the missing metric once.
    assert sorted(resolved) == ["nothing", "return_rate", "return_rate"]


async def test_a_different_question_is_resolved_for_itself_never_from_anothers_entry(
    http: httpx.AsyncClient, resolved: list[str]
) -> None:
    questions: list[dict[str, Any]] = [
        {},
        {"grain": "year"},
        {"range": {"start": "2023-01-01", "end": "2024-01-01"}},
        {"dimensions": []},
        {"metrics": ["order_count"]},
    ]
    first = [await _ask(http, STAFF, **changed) for changed in questions]
    again = [await _ask(http, STAFF, **changed) for changed in reversed(questions)][::-1]
    bodies = [reply.json() for reply in first]
    assert all(reply.status_code == 200 for reply in first + again), [r.text for r in first]
    assert [reply.json()["rows"] for reply in again] == [body["rows"] for body in bodies]
    periods = [{row[0] for row in body["rows"]} for body in bodies]
    assert len(periods[0]) == 4 and all(p.startswith("2024") for p in periods[0])
    assert periods[1] == {"2024-01-01"}
    assert periods[2] and all(p.startswith("2023") for p in periods[2])
    assert bodies[3]["columns"] == ["period", "revenue"]
    assert bodies[4]["columns"] == ["period", "region", "order_count"]
    assert len(resolved) == len(questions)  # each once, none from another's entry


async def test_a_question_counting_back_from_today_is_resolved_again_on_the_next_day(
    example_dir: Path, tmp_path: Path, resolved: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    days = [datetime.date(2024, 12, 31)]
    monkeypatch.setattr(startup_module, "utc_today", lambda: days[-1])
    config = write_multi_user(tmp_path / "config", example_dir, PAIR)
    last_year = {
        "grain": "year",
        "dimensions": [],
        "range": {"last": {"count": 1, "unit": "year"}},
    }
    async with assembled(config) as started, client(started.app) as http:
        del resolved[:]  # the anchors', at start
        before = [await _ask(http, STAFF, **last_year) for _ in range(2)]
        days.append(datetime.date(2025, 1, 1))
        after = await _ask(http, STAFF, **last_year)
    assert [reply.status_code for reply in [*before, after]] == [200, 200, 200], after.text
    assert [row[0] for row in before[0].json()["rows"]] == ["2023-01-01"]
    assert before[1].json()["rows"] == before[0].json()["rows"]
    # The new day's last year is 2024: resolved again, never the kept 2023.
    assert [row[0] for row in after.json()["rows"]] == ["2024-01-01"]
    assert resolved == ["revenue", "revenue"]
