"""The public Python API: its examples run, its render half is light, its names are documented."""

import doctest
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from sutura import api
from sutura.core.nouns.refusal import RefusalCode
from tests.services import sources_of

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("mcp", "litestar", "uvicorn", "duckdb", "psycopg", "sqlglot", "anyio")
PURE = (
    "sutura.core.text.render",
    "sutura.core.tool.codec",
    "sutura.core.text.decode",
    "sutura.core.text.escape",
    "sutura.api",
)
YEAR = {"start": "2024-01-01", "end": "2025-01-01"}


def test_the_examples_in_the_api_docstrings_run() -> None:
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    failed, attempted = doctest.testmod(api, optionflags=flags)
    assert (failed, attempted > 10) == (0, True)


@pytest.mark.parametrize("module", PURE)
def test_the_render_modules_import_without_the_mcp_http_or_database_stacks(module: str) -> None:
    probe = f"import sys, {module}; print(sorted({{m.split('.')[0] for m in sys.modules}}))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(eval(done.stdout))
    assert module.split(".")[0] in loaded
    assert not loaded & set(HEAVY)


@pytest.mark.parametrize("name", api.__all__)
def test_every_public_name_exists_and_is_documented(name: str) -> None:
    assert hasattr(api, name)
    assert f"`{name}" in (ROOT / "docs" / "batch.md").read_text()


def test_load_reports_every_problem_as_a_sentence_without_touching_data(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("catalog:\n  dir: nowhere\n  color: blue\n")
    problems = api.load(tmp_path).failure()
    assert problems and all(isinstance(p, str) for p in problems)
    assert any("color" in p for p in problems)


def test_load_returns_settings_and_the_pinned_catalog(example_dir: Path) -> None:
    loaded = api.load(example_dir, environ={}).unwrap()
    assert loaded.pinned.version == "example-1"


def test_ask_refuses_to_start_with_a_broken_configuration(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("limits:\n  max_rows: many\n")
    revenue = api.question({"metrics": ["revenue"], "grain": "year", "range": YEAR}).unwrap()
    assert api.ask([revenue], tmp_path).failure()


def test_ask_answers_each_question_in_order(example_dir: Path) -> None:
    year = {"grain": "year", "range": YEAR}
    questions = [
        api.question({"metrics": ["order_count"], **year}).unwrap(),
        api.question({"metrics": ["revenue"], **year, "dimensions": ["salary"]}).unwrap(),
        api.question({"metrics": ["revenue"], "grain": "year", "range": {}}).unwrap(),
    ]
    answered, refused, malformed = api.ask(questions, example_dir).unwrap()
    assert isinstance(answered, api.Answer) and answered.columns == ["period", "order_count"]
    assert isinstance(refused, api.Refused)
    assert refused.reason.code is RefusalCode.DIMENSION_NOT_PERMITTED
    assert isinstance(malformed, api.QuestionError) and malformed.field == "$.range"


def test_conflicting_question_fields_come_back_as_question_errors_naming_the_field(
    example_dir: Path,
) -> None:
    year: dict[str, object] = {"metrics": ["revenue"], "grain": "month", "range": YEAR}
    conflicting: dict[str, dict[str, object]] = {
        "$.window": {"window": {"running": True, "trailing": 3}},
        "$.compare": {"window": {"running": True}, "compare": {"to": "previous_period"}},
        "$.top.by": {"dimensions": ["region"], "top": {"n": 1, "by": "period", "per": "period"}},
        "$.window.trailing": {"window": {"trailing": 0}},
    }
    questions = [api.question({**year, **fields}).unwrap() for fields in conflicting.values()]
    outcomes = api.ask(questions, example_dir).unwrap()
    assert [o.field for o in outcomes if isinstance(o, api.QuestionError)] == list(conflicting)


def _revenue_in_2024(grain: str) -> api.Question:
    """Revenue over 2024 at ``grain``, as a program writes the question."""
    return api.question({"metrics": ["revenue"], "grain": grain, "range": YEAR}).unwrap()


async def test_opened_gives_a_service_for_the_block_that_answers_calls(example_dir: Path) -> None:
    revenue = _revenue_in_2024("year")
    with anyio.fail_after(30):
        async with api.opened(example_dir, anchors=False) as started:
            service = started.unwrap()
            reply = await api.call(service, api.Capability.ASK_METRIC, revenue)
    outcome = api.outcome_of(reply)
    assert isinstance(outcome, api.Answer) and outcome.columns == ["period", "revenue"]
    assert not any(source_open(s) for s in sources_of(service).values())


def source_open(source: object) -> bool:
    """Whether a DuckDB source's connection still answers (closed when the block ended)."""
    connection = getattr(source, "_connection", None)
    try:
        return connection is not None and connection.execute("SELECT 1") is not None
    except Exception:
        return False


def test_a_secret_is_read_from_the_environment_given_not_the_process_one(
    example_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "pg"
    config.mkdir()
    (config / "base.yaml").write_text(
        f"catalog: {{dir: {example_dir / 'catalog'}}}\n"
        "sources: {main: {kind: postgres, host: 127.0.0.1, port: 1, password_env: SHOP_PW}}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SHOP_PW", "from the process")
    problems = api.ask([], config, environ={}).failure()
    assert problems == [
        "settings: sources.main: source main: the environment variable SHOP_PW is not set"
    ]


def test_a_question_with_an_unknown_field_names_the_field() -> None:
    error = api.question({"metrics": ["revenue"], "grain": "year", "range": YEAR, "sql": "x"})
    assert error.failure() == api.QuestionError(field="$.sql", problem="unknown field")


def test_both_halves_come_from_the_one_value_or_the_refusal_replaces_both() -> None:
    refusal = api.Refused(
        reason=api.Refusal(code=RefusalCode.METRIC_UNKNOWN, status=404, detail="Read it.")
    )
    halves = api.render_halves(refusal)
    assert halves.text == api.render_text(refusal) == "refused (metric_unknown): Read it."
    assert halves.structured == api.render_structured(refusal)
    assert api.decode_structured(halves.structured).unwrap() == refusal


def test_decoding_failures_are_typed_values() -> None:
    assert api.decode_structured(b"[]").failure().path == "$"
    assert api.decode_text("refused (no_such_code): x").failure().line == 1
    assert api.split_rendered("no separator\n").failure().line == 1


pytestmark = pytest.mark.anyio


async def test_where_the_data_is_is_asked_again_when_a_catalog_call_was_cut_short(
    example_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A describe_catalog whose deadline ends while its source is still asked where each
    metric's data is shows the catalog without data lines; the next one asks again and states
    them (a DuckDB source is otherwise asked once: cut short, it was never asked again)."""
    environ = {"SUTURA__LIMITS__DEADLINE_SECONDS": "1"}
    with anyio.fail_after(60):
        async with api.opened(example_dir, environ=environ, anchors=False) as started:
            service = started.unwrap()
            source = sources_of(service)["main"]
            held = anyio.Event()
            fetch = source.fetch

            async def stalled(*args: Any, **kwargs: Any) -> Any:
                if not held.is_set():  # the first statement waits past the call's deadline
                    await anyio.sleep_forever()
                return await fetch(*args, **kwargs)

            monkeypatch.setattr(source, "fetch", stalled)
            cut = await api.call(service, api.Capability.DESCRIBE_CATALOG, {})
            held.set()
            again = await api.call(service, api.Capability.DESCRIBE_CATALOG, {})
    assert isinstance(cut, api.Answered) and isinstance(again, api.Answered)
    unstated = [m.get("data") for m in msgspec.json.decode(cut.halves.structured)["metrics"]]
    stated = [m.get("data") for m in msgspec.json.decode(again.halves.structured)["metrics"]]
    assert len(stated) == len(unstated) > 1 and set(unstated) == {None}
    assert all(data is not None for data in stated)


async def test_an_answer_from_outcome_of_is_what_msgspec_encodes_to_its_structured_half(
    example_dir: Path,
) -> None:
    """The reply holds an answer's rows once, read from its structured half; the answer
    ``outcome_of`` gives holds them as lists, so a program encodes it as it always could, to
    the very bytes of the structured half."""
    revenue = _revenue_in_2024("month")
    with anyio.fail_after(30):
        async with api.opened(example_dir, anchors=False) as started:
            reply = await api.call(started.unwrap(), api.Capability.ASK_METRIC, revenue)
    outcome = api.outcome_of(reply)
    assert isinstance(reply, api.Answered) and isinstance(outcome, api.Answer)
    assert len(outcome.rows) == 12 and all(type(row) is list for row in outcome.rows)
    assert msgspec.json.encode(outcome) == reply.halves.structured
    assert msgspec.to_builtins(outcome)["rows"] == list(reply.value.rows)  # type: ignore[union-attr]
