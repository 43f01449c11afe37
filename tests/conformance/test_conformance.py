"""DuckDB and PostgreSQL give byte-identical answers and identical refusals to every question,
and the answers the pack's oracles compute from the data."""

import functools
import shutil
from pathlib import Path
from typing import assert_never

import anyio
import msgspec
import pytest

from sutura.boundary.catalog_files import load_catalog
from sutura.boundary.example import CATALOG, write_example
from sutura.core.definitions.model import (
    Aggregate,
    AggregateTerm,
    CountIfTerm,
    ExpressionTerm,
    Measure,
    Metric,
    RatioMeasure,
    SimpleMeasure,
    Term,
    ZeroDenominator,
)
from sutura.core.expression.nodes import (
    ArithmeticOp,
    Check,
    Comparison,
    Connective,
    ConstantKind,
    Membership,
    Part,
)
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.grain import Grain
from sutura.core.nouns.refusal import RefusalCode
from tests.conformance.conftest import PORTABLE, Engines, Served
from tests.conformance.pack import (
    EXTRA_CATALOG,
    ORACLES,
    PACK,
    Case,
    ask,
    ask_service,
    expect_case,
    expect_groups_of_each_metric_alone,
    expect_the_same_extents,
    expect_values_asked_back,
    several_metrics,
    text_half_without_source,
)

# The refusals a data system can cause through the certified surface, provoked identically.
SOURCE_REFUSALS = {
    RefusalCode.RESULT_TOO_LARGE,
    RefusalCode.DEADLINE_EXCEEDED,
    RefusalCode.DENOMINATOR_ZERO,
    RefusalCode.SOURCE_REFUSED,
    RefusalCode.SOURCE_UNAVAILABLE,
}


@pytest.mark.postgres
@pytest.mark.anyio
@pytest.mark.parametrize("case", PACK.questions, ids=lambda case: case.name)
async def test_duckdb_and_postgres_give_the_same_outcome(
    engines: Engines, served: Served, case: Case
) -> None:
    with anyio.fail_after(60):
        if case.closed:
            on_duckdb = await ask(engines.duckdb, case, PACK.today)
            on_postgres = await ask(engines.postgres, case, PACK.today, engines.postgres_environ)
        else:
            on_duckdb = await ask_service(served.duckdb, case, PACK.today)
            on_postgres = await ask_service(served.postgres, case, PACK.today)
    for outcome in (on_duckdb, on_postgres):
        expect_case(case, outcome, engines.oracles)
    assert text_half_without_source(on_postgres) == text_half_without_source(on_duckdb)
    if isinstance(on_duckdb, Refused):
        assert on_postgres == on_duckdb


@pytest.mark.postgres
@pytest.mark.anyio
@pytest.mark.parametrize(
    "case", [c for c in PACK.questions if several_metrics(c)], ids=lambda case: case.name
)
async def test_metrics_asked_together_answer_the_groups_each_answers_alone(
    served: Served, case: Case
) -> None:
    with anyio.fail_after(60):
        for service in (served.duckdb, served.postgres):
            await expect_groups_of_each_metric_alone(
                functools.partial(ask_service, service, today=PACK.today), case
            )


def test_every_oracle_is_the_answer_of_a_question_in_the_pack() -> None:
    answered = {case.name for case in PACK.questions if case.expect == "answer"}
    oracles = {path.stem for path in ORACLES.glob("*.sql")}
    assert oracles and oracles <= answered


def test_the_pack_has_at_least_twenty_questions_with_unique_names() -> None:
    names = [case.name for case in PACK.questions]
    assert len(names) >= 20
    assert len(set(names)) == len(names)


def test_the_pack_asks_every_grain_filter_operator_and_range_form() -> None:
    questions = [case.question for case in PACK.questions]
    grains = {grain.value for grain in Grain}
    assert {q.get("grain", "none") for q in questions} == {*grains, "none"}
    ops = {f["op"] for q in questions for f in _filters(q)}
    assert ops == {
        "eq",
        "in",
        "not_in",
        "lt",
        "le",
        "gt",
        "ge",
        "between",
        "is_null",
        "is_not_null",
    }
    ranges = [q["range"] for q in questions]
    assert any(isinstance(r, dict) and "last" in r for r in ranges)
    assert any(isinstance(r, dict) and "start" in r for r in ranges)
    tops = [q["top"] for q in questions if "top" in q]
    assert {t["by"] == "period" for t in tops if isinstance(t, dict)} == {True, False}


# The refusals a question's own features cause, on every engine alike: a window over what does
# not add up, and a derived metric asked at a grain or by a dimension it does not list.
QUESTION_REFUSALS = {
    RefusalCode.TIME_RANGE_TOO_LONG,
    RefusalCode.WINDOW_NOT_ADDITIVE,
    RefusalCode.GRAIN_NOT_SUPPORTED,
    RefusalCode.DIMENSION_NOT_PERMITTED,
}


def test_the_pack_provokes_every_refusal_a_source_or_a_window_can_cause() -> None:
    expected = {case.expect for case in PACK.questions} - {"answer"}
    assert {RefusalCode(code) for code in expected} == SOURCE_REFUSALS | QUESTION_REFUSALS


def test_the_pack_asks_every_comparison_window_fill_and_top_per_period() -> None:
    questions = [case.question for case in PACK.questions if case.expect == "answer"]
    compared = {str(q["compare"]) for q in questions if "compare" in q}
    assert compared == {str({"to": "previous_period"}), str({"to": "previous_year"})}
    windows = {next(iter(w)) for q in questions if isinstance(w := q.get("window"), dict)}
    assert windows == {"running", "trailing"}
    assert any(q.get("fill") is True and q.get("dimensions") for q in questions)
    assert any(isinstance(t := q.get("top"), dict) and "per" in t for q in questions)


def test_the_pack_asks_derived_metrics_with_compare_window_and_top() -> None:
    derived = {"net_revenue", "revenue_per_active_customer"}
    questions = [
        c.question
        for c in PACK.questions
        if c.expect == "answer" and derived & set(map(str, c.question["metrics"]))  # type: ignore[call-overload]
    ]
    assert {key for q in questions for key in ("compare", "window", "top") if key in q} == {
        "compare",
        "window",
        "top",
    }


def test_the_pack_asks_every_aggregate_count_if_and_both_zero_denominator_rules(
    tmp_path: Path,
) -> None:
    write_example(tmp_path, orders=200)
    for document in EXTRA_CATALOG.glob("*.md"):
        shutil.copy(document, tmp_path / CATALOG / document.name)
    catalog = load_catalog(tmp_path / CATALOG, "conformance").unwrap().catalog
    asked = {name for case in PACK.questions for name in _metrics(case.question)}
    measures = [m.measure for m in catalog.metrics if m.name in asked]
    terms = [t for m in measures for t in _terms(m)]
    aggregates = {t.aggregate for t in terms if isinstance(t, AggregateTerm | ExpressionTerm)}
    assert aggregates == set(Aggregate)
    assert any(isinstance(t, CountIfTerm) for t in terms)
    rules = {m.zero_denominator for m in measures if isinstance(m, RatioMeasure)}
    assert rules == set(ZeroDenominator)


def test_the_pack_asks_every_node_of_the_expression_vocabulary(tmp_path: Path) -> None:
    write_example(tmp_path, orders=200)
    for document in EXTRA_CATALOG.glob("*.md"):
        shutil.copy(document, tmp_path / CATALOG / document.name)
    catalog = load_catalog(tmp_path / CATALOG, "conformance").unwrap().catalog
    seen: set[str] = set()
    for case in PACK.questions:
        asked = {*_listed(case.question, "dimensions")}
        asked |= {str(f["dimension"]) for f in _filters(case.question)}
        for name in _metrics(case.question):
            metric = catalog.metric(name)
            if metric is not None:
                seen |= _kinds(_read_when_asked(metric, asked))
    vocabulary = {f"part:{p.value}" for p in Part} | {f"arithmetic:{o.value}" for o in ArithmeticOp}
    vocabulary |= {f"compare:{c.value}" for c in Comparison} | {f"test:{c.value}" for c in Check}
    vocabulary |= {f"member:{m.value}" for m in Membership}
    vocabulary |= {f"junction:{j.value}" for j in Connective}
    vocabulary |= {f"constant:{k.value}" for k in ConstantKind if k is not ConstantKind.INFERRED}
    vocabulary |= {"column:via", "negate", "coalesce", "case", "buckets", "between", "not"}
    vocabulary |= {"starts_with", "time_via", "predicate", "expression"}
    assert vocabulary - seen == set()


def _read_when_asked(metric: Metric, asked: set[str]) -> object:
    """What a question over ``metric`` reads: its measure, filters, time column's chain, and
    the dimensions asked (as plain values, every node tagged by its kind)."""
    dimensions = [d for d in metric.dimensions if d.name in asked]
    read = msgspec.structs.replace(metric, dimensions=tuple(dimensions))
    return msgspec.to_builtins(read)


def _kinds(value: object) -> set[str]:
    """The kind of every tagged node in ``value``, with its operator, part or test."""
    found: set[str] = set()
    if isinstance(value, dict):
        kind = value.get("type")
        detail = next((value[k] for k in ("op", "part", "check", "kind") if k in value), None)
        if kind == "column":
            found.add("column:via" if value.get("via") else "column")
        elif isinstance(kind, str):
            found.add(f"{kind}:{detail}" if isinstance(detail, str) else kind)
        if value.get("time_via"):
            found.add("time_via")
        if value.get("expression") is not None and "name" in value:
            found.add("expression")
        for item in value.values():
            found |= _kinds(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= _kinds(item)
    return found


def _listed(question: dict[str, object], key: str) -> list[str]:
    values = question.get(key, [])
    assert isinstance(values, list)
    return [str(value) for value in values]


def _terms(measure: Measure) -> list[Term]:
    match measure:
        case SimpleMeasure():
            return [measure.term]
        case RatioMeasure():
            return [measure.numerator, measure.denominator]
        case _:
            assert_never(measure)


def _filters(question: dict[str, object]) -> list[dict[str, object]]:
    filters = question.get("filters", [])
    assert isinstance(filters, list)
    return [f for f in filters if isinstance(f, dict)]


def _metrics(question: dict[str, object]) -> list[str]:
    metrics = question["metrics"]
    assert isinstance(metrics, list)
    return [str(m) for m in metrics]


@pytest.mark.postgres
@pytest.mark.anyio
async def test_char_values_are_answered_unpadded_and_may_be_asked_back(served: Served) -> None:
    with anyio.fail_after(60):
        for service in (served.duckdb, served.postgres):
            await expect_values_asked_back(service)


@pytest.mark.postgres
@pytest.mark.anyio
async def test_the_catalog_states_where_each_metrics_data_is_as_duckdb_does(
    served: Served,
) -> None:
    with anyio.fail_after(120):
        await expect_the_same_extents(served.duckdb, served.postgres)


@pytest.mark.postgres
@pytest.mark.anyio
@pytest.mark.parametrize(
    "case",
    [c for c in PACK.questions if (ORACLES / f"{c.name}.sql").exists() and PORTABLE in c.name],
    ids=lambda c: c.name,
)
async def test_semi_additive_answers_equal_the_oracle_postgresql_computes_itself(
    engines: Engines, served: Served, case: Case
) -> None:
    """The semi-additive oracles are portable SQL: PostgreSQL runs them on its own copy of the
    rows, and both engines' answers equal what it computes (as they equal DuckDB's)."""
    with anyio.fail_after(60):
        on_postgres = await ask_service(served.postgres, case, PACK.today)
        on_duckdb = await ask_service(served.duckdb, case, PACK.today)
    expected = engines.postgres_oracles[case.name]
    assert expected == engines.oracles[case.name]
    for outcome in (on_duckdb, on_postgres):
        assert isinstance(outcome, Answer) and outcome.rows == expected, outcome
