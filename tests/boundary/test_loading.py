"""Loading a deployment the way an operator meets it: ``load(environ)`` over files they wrote.

Each test writes a settings directory and a catalog (copied from the example and edited), and
reads every problem as the operator sentence ``load`` returns.
"""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

from pathlib import Path

import msgspec
import pytest
from returns.pipeline import is_successful

from sutura.api import outcome_of
from sutura.boundary.loading import Loaded, load
from sutura.core.nouns.answer import Answer
from sutura.core.nouns.question import Question
from sutura.core.settings import DuckDBSourceSettings, PostgresSourceSettings
from sutura.core.tool.capability import Capability
from tests.edited_example import BASE, customers_on_crm
from tests.edited_example import edited_example as _deployment
from tests.postgres import copy_from_duckdb, scratch_database
from tests.services import call, serving


def _problems(environ: dict[str, str]) -> list[str]:
    result = load(environ)
    assert not is_successful(result), "expected the deployment to be refused"
    return result.failure()


def _loaded(environ: dict[str, str]) -> Loaded:
    result = load(environ)
    assert is_successful(result), result.failure()
    return result.unwrap()


def test_a_dimension_reached_through_a_relationship_into_another_source_stops_the_load(
    example_dir: Path, tmp_path: Path
) -> None:
    base = BASE + "  crm: {kind: duckdb, path: crm.duckdb}\n"
    config = _deployment(example_dir, tmp_path, customers_on_crm, base)
    problems = _problems({"SUTURA_CONFIG_DIR": str(config)})
    assert problems[0].startswith(f"catalog {(config / 'catalog').resolve()}: ")
    assert (
        "order_customer.md:5: target_model: the model 'customers' reads the source 'crm' "
        "and the model 'orders' reads 'main'; one statement reads one source, so a "
        "relationship joins models of one source"
    ) in problems
    # The example's region and segment are shared by customers: reached along the relationship,
    # refused once, at the relationship.
    assert not any(p.startswith("revenue.md") for p in problems)


def test_catalog_problems_name_files_relative_to_the_catalog_after_one_line_naming_it(
    example_dir: Path, tmp_path: Path
) -> None:
    def broken(name: str, text: str) -> str:
        return text.replace("aggregate: sum", "aggregate: total") if name == "revenue.md" else text

    config = _deployment(example_dir, tmp_path, broken)
    catalog_dir = (config / "catalog").resolve()
    assert _problems({"SUTURA_CONFIG_DIR": str(config)}) == [
        f"catalog {catalog_dir}: 1 problem; files are named relative to this directory",
        "revenue.md:7: measure.simple.aggregate: expected one of sum, count, count_distinct, "
        "min, max, avg, median, percentile",
    ]


def test_a_missing_catalog_directory_is_named_once(example_dir: Path, tmp_path: Path) -> None:
    config = _deployment(example_dir, tmp_path)
    problems = _problems({"SUTURA_CONFIG_DIR": str(config), "SUTURA__CATALOG__DIR": "nowhere"})
    missing = (config / "nowhere").resolve()
    assert problems == [
        f"catalog {missing}: 1 problem; files are named relative to this directory",
        f".: the catalog directory '{missing}' does not exist",
    ]


@pytest.mark.parametrize(
    ("file", "old", "new", "line", "key"),
    [
        ("revenue.md", "value: cancelled", 'value: "\\udc00"', 14, "required_filters[0].not_equals.value"),
        ("orders.md", "values: [phone, store, web]", 'values: [phone, "\\ud800"]', 32, "dimensions[0].values[1]"),
        ("customers.md", "description: Where the buyer is based.", 'description: "a\\ud800"', 24, "dimensions[0].description"),
    ],
)  # fmt: skip
def test_a_lone_surrogate_escape_in_a_catalog_value_is_named_by_file_line_and_key(
    example_dir: Path, tmp_path: Path, file: str, old: str, new: str, line: int, key: str
) -> None:
    def escaped(name: str, text: str) -> str:
        return text.replace(old, new, 1) if name == file else text

    config = _deployment(example_dir, tmp_path, escaped)
    assert _problems({"SUTURA_CONFIG_DIR": str(config)})[1:] == [
        f"{file}:{line}: {key}: the value holds a lone surrogate (an escape from \\ud800 "
        "to \\udfff), which is not text; write the character itself"
    ]


@pytest.mark.parametrize(
    ("base", "extra", "origin"),
    [
        (BASE.replace("main.duckdb}", "main.duckdb, posture: the-dba}"), {}, "base.yaml:4"),
        (BASE, {"SUTURA__SOURCES__MAIN__POSTURE": "impersonation-at-source"}, "SUTURA__SOURCES__MAIN__POSTURE"),
    ],
)  # fmt: skip
def test_an_unknown_posture_is_a_settings_error_listing_the_allowed_values(
    example_dir: Path, tmp_path: Path, base: str, extra: dict[str, str], origin: str
) -> None:
    config = _deployment(example_dir, tmp_path, base=base)
    [problem] = _problems({"SUTURA_CONFIG_DIR": str(config), **extra})
    assert problem.endswith(f"{origin}: sources.main.posture: expected one of shared-service-user")
    assert "the-dba" not in problem


def test_the_posture_is_read_as_its_closed_vocabulary(example_dir: Path, tmp_path: Path) -> None:
    config = _deployment(example_dir, tmp_path)
    [source] = _loaded({"SUTURA_CONFIG_DIR": str(config)}).loaded.settings.sources.values()
    assert source.posture == "shared-service-user"
    assert type(source.posture).__name__ == "Posture"


POSTGRES = {
    "SUTURA__SOURCES__MAIN__KIND": "postgres",
    "SUTURA__SOURCES__MAIN__HOST": "db.internal",
    "SUTURA__SOURCES__MAIN__DATABASE": "shop",
}


def test_environment_variables_switch_a_source_to_another_kind(
    example_dir: Path, tmp_path: Path
) -> None:
    config = _deployment(example_dir, tmp_path)
    loaded = _loaded({"SUTURA_CONFIG_DIR": str(config), **POSTGRES})
    source = loaded.loaded.settings.sources["main"]
    assert source == PostgresSourceSettings(host="db.internal", database="shop")


def test_an_environment_file_switches_a_source_and_the_variables_still_refine_it(
    example_dir: Path, tmp_path: Path
) -> None:
    config = _deployment(example_dir, tmp_path)
    (config / "test.yaml").write_text("sources:\n  main:\n    kind: postgres\n    host: db\n")
    environ = {"SUTURA_CONFIG_DIR": str(config), "SUTURA_ENVIRONMENT": "test"}
    assert _loaded(environ).loaded.settings.sources["main"] == PostgresSourceSettings(host="db")
    environ["SUTURA__SOURCES__MAIN__PORT"] = "6432"
    source = _loaded(environ).loaded.settings.sources["main"]
    assert source == PostgresSourceSettings(host="db", port=6432)
    environ["SUTURA__SOURCES__MAIN__KIND"] = "duckdb"
    environ["SUTURA__SOURCES__MAIN__PATH"] = "other.duckdb"
    del environ["SUTURA__SOURCES__MAIN__PORT"]
    source = _loaded(environ).loaded.settings.sources["main"]
    assert source == DuckDBSourceSettings(path="other.duckdb")


@pytest.mark.postgres
@pytest.mark.anyio
async def test_a_source_switched_to_postgres_by_variables_starts_and_answers_from_it(
    example_dir: Path, tmp_path: Path, postgres_dsn: str
) -> None:
    database = (example_dir / "data" / "example.duckdb").resolve()
    base = BASE.replace("main.duckdb", str(database))
    config = _deployment(example_dir, tmp_path / "config", base=base)
    question = msgspec.convert(
        {
            "metrics": ["revenue"],
            "grain": "year",
            "range": {"start": "2024-01-01", "end": "2025-01-01"},
        },
        Question,
    )
    with scratch_database(postgres_dsn) as scratch:
        copy_from_duckdb(database, scratch, tmp_path)
        (tmp_path / "password").write_text(scratch.reader_password, encoding="utf-8")
        environ = {
            "SUTURA_CONFIG_DIR": str(config),
            "SUTURA__SOURCES__MAIN__KIND": "postgres",
            "SUTURA__SOURCES__MAIN__HOST": scratch.host,
            "SUTURA__SOURCES__MAIN__PORT": str(scratch.port),
            "SUTURA__SOURCES__MAIN__DATABASE": scratch.database,
            "SUTURA__SOURCES__MAIN__USER": scratch.reader,
            "SUTURA__SOURCES__MAIN__PASSWORD_FILE": str(tmp_path / "password"),
        }
        async with serving(environ) as service:  # every anchor reproduced on PostgreSQL
            assert service.source_dialects()["main"] == "postgres"
            outcome = outcome_of(await call(service, Capability.ASK_METRIC, question))
    assert isinstance(outcome, Answer)
    [executed] = msgspec.to_builtins(outcome.provenance.executed_as)
    assert executed == {"source": "main", "posture": "shared-service-user"}


@pytest.mark.parametrize(
    ("environment_file", "extra", "problem"),
    [
        (None, {**POSTGRES, "SUTURA__SOURCES__MAIN__PATH": "x"}, "SUTURA__SOURCES__MAIN__PATH: sources.main.path: unknown key for a postgres source"),
        (None, {**POSTGRES, "SUTURA__SOURCES__MAIN__PORT": "many"}, "SUTURA__SOURCES__MAIN__PORT: sources.main.port: expected `int`, got `str`"),
        (None, {"SUTURA__SOURCES__MAIN__HOST": "db"}, "SUTURA__SOURCES__MAIN__HOST: sources.main.host: unknown key for a duckdb source"),
        (None, {"SUTURA__SOURCES__MAIN__KIND": "oracle"}, "SUTURA__SOURCES__MAIN__KIND: sources.main.kind: expected one of duckdb, postgres, spark"),
        ("sources:\n  main:\n    kind: postgres\n    port: many\n", {}, "test.yaml:4: sources.main.port: expected `int`, got `str`"),
        ("sources:\n  main:\n    kind: postgres\n", {"SUTURA__SOURCES__MAIN__KIND": "duckdb"}, "SUTURA__SOURCES__MAIN__KIND: sources.main.path: missing required key"),
        ("sources:\n  main:\n    kind: postgres\n", {"SUTURA__SOURCES__MAIN__THREADS": "2"}, "SUTURA__SOURCES__MAIN__THREADS: sources.main.threads: unknown key for a postgres source"),
    ],
)  # fmt: skip
def test_a_problem_after_a_kind_switch_names_the_file_or_variable_that_wrote_it(
    example_dir: Path,
    tmp_path: Path,
    environment_file: str | None,
    extra: dict[str, str],
    problem: str,
) -> None:
    config = _deployment(example_dir, tmp_path)
    if environment_file is not None:
        (config / "test.yaml").write_text(environment_file, encoding="utf-8")
    environ = {"SUTURA_CONFIG_DIR": str(config), "SUTURA_ENVIRONMENT": "test", **extra}
    expected = problem if problem.startswith("SUTURA__") else f"{config}/{problem}"
    assert _problems(environ) == [expected]


@pytest.mark.parametrize("opening", ["[", "{a: "])
def test_a_settings_file_nested_hundreds_of_levels_deep_is_named_not_a_crash(
    example_dir: Path, tmp_path: Path, opening: str
) -> None:
    closing = "]" if opening == "[" else "}"
    deep = "server: " + opening * 600 + "1" + closing * 600 + "\n"
    config = _deployment(example_dir, tmp_path, base=BASE + deep)
    assert _problems({"SUTURA_CONFIG_DIR": str(config)}) == [
        f"{config / 'base.yaml'}:5: nests deeper than 16 levels"
    ]


def test_a_key_written_twice_in_a_settings_file_is_refused_naming_the_second_line(
    example_dir: Path, tmp_path: Path
) -> None:
    config = _deployment(
        example_dir, tmp_path, base=BASE + "limits:\n  max_rows: 5\n  max_rows: 6\n"
    )
    assert _problems({"SUTURA_CONFIG_DIR": str(config)}) == [
        f"{config / 'base.yaml'}:7: limits.max_rows: this key is written twice in one mapping"
    ]


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        ({"SUTURA__SERVER__PORT__X": "1"}, "SUTURA__SERVER__PORT__X: server.port.x: no key goes under server.port, which holds a single value"),
        ({"SUTURA__SERVER__PORT": "1", "SUTURA__SERVER__PORT__X": "1"}, "SUTURA__SERVER__PORT__X: server.port.x: no key goes under server.port, which SUTURA__SERVER__PORT sets to a single value"),
        ({"SUTURA__SOURCES__MAIN__PATH__X": "1"}, "SUTURA__SOURCES__MAIN__PATH__X: sources.main.path.x: no key goes under sources.main.path, which holds a single value"),
    ],
)  # fmt: skip
def test_a_settings_variable_under_a_single_value_is_refused_naming_it(
    example_dir: Path, tmp_path: Path, extra: dict[str, str], problem: str
) -> None:
    config = _deployment(example_dir, tmp_path)
    assert _problems({"SUTURA_CONFIG_DIR": str(config), **extra}) == [problem]


def test_a_settings_variable_hundreds_of_parts_deep_is_named_not_a_crash(
    example_dir: Path, tmp_path: Path
) -> None:
    config = _deployment(example_dir, tmp_path)
    variable = "SUTURA__SOURCES__MAIN__" + "__".join(["DEEPER"] * 600)
    [problem] = _problems({"SUTURA_CONFIG_DIR": str(config), variable: "1"})
    assert problem == f"{variable}: sources.main.deeper: unknown key for a duckdb source"


DOTTED = (
    "catalog: {dir: catalog, version: t}\n"
    "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    "sources:\n"
    "  main: {kind: duckdb, path: main.duckdb}\n"
    "  main.x:\n"
    "    kind: duckdb\n"
    "    path: 42\n"
)
"""A source whose alias is not a plain name (``main.x``), its ``path`` on line 7."""


@pytest.mark.parametrize(
    ("base", "extra", "problem"),
    [
        (DOTTED, {}, "base.yaml:7: sources.\"main.x\".path: expected `str`, got `int`"),
        (DOTTED.replace("path: 42", "path: x.duckdb\n    bogus: 1"), {}, "base.yaml:8: sources.\"main.x\".bogus: unknown key for a duckdb source"),
        (DOTTED.replace("path: 42", "path: x.duckdb"), {"SUTURA__SOURCES__MAIN.X__HOST": "db"}, "SUTURA__SOURCES__MAIN.X__HOST: sources.\"main.x\".host: unknown key for a duckdb source"),
        (BASE + '  "main x": {kind: duckdb, path: x.duckdb, threads: many}\n', {}, "base.yaml:5: sources.\"main x\".threads: expected `int | null`, got `str`"),
    ],
)  # fmt: skip
def test_a_source_alias_that_is_not_a_plain_name_is_quoted_in_a_problem_on_its_own_line(
    example_dir: Path, tmp_path: Path, base: str, extra: dict[str, str], problem: str
) -> None:
    # Joined with dots as they are, sources.main.x.path would name a key `x` of the source
    # `main`, and the file's line for it is not found: the problem named the `sources:` line.
    config = _deployment(example_dir, tmp_path, base=base)
    expected = problem if problem.startswith("SUTURA__") else f"{config}/{problem}"
    assert _problems({"SUTURA_CONFIG_DIR": str(config), **extra}) == [expected]
