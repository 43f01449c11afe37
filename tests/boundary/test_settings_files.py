"""Settings layers: defaults, base.yaml, <environment>.yaml, SUTURA__A__B."""

# ruff: noqa: E501 - the expected sentences read best whole, one table row per line

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from sutura.boundary.settings_files import SettingsError, load_settings
from sutura.core.nouns.prose import CatalogProse
from sutura.core.settings import PostgresSourceSettings


def _errors(environ: dict[str, str]) -> list[SettingsError]:
    result = load_settings(environ)
    assert not is_successful(result), result
    return result.failure()


def test_defaults_apply_without_any_layer() -> None:
    settings = load_settings({}).unwrap().settings
    assert settings.limits.max_rows == 10_000
    assert settings.prompt.catalog_prose is CatalogProse.QUOTED
    assert settings.tools.run_sql.enabled is False


def test_later_layers_win_in_order(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("limits: {max_rows: 5, max_dimensions: 2}\n")
    (tmp_path / "test.yaml").write_text("limits: {max_rows: 6}\n")
    environ = {"SUTURA_CONFIG_DIR": str(tmp_path), "SUTURA_ENVIRONMENT": "test"}
    limits = load_settings(environ).unwrap().settings.limits
    assert (limits.max_rows, limits.max_dimensions) == (6, 2)
    environ["SUTURA__LIMITS__MAX_ROWS"] = "7"
    assert load_settings(environ).unwrap().settings.limits.max_rows == 7


def test_an_unknown_key_is_refused_naming_the_file_and_key(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("limits:\n  max_rowz: 5\n")
    [error] = _errors({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert error.origin == str(tmp_path / "base.yaml")
    assert error.key == "limits.max_rowz"
    assert error.sentence().endswith("limits.max_rowz: unknown key")


def test_an_unknown_key_inside_a_source_is_refused(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("sources:\n  main: {kind: duckdb, path: x, pasword: y}\n")
    [error] = _errors({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert error.key == "sources.main.pasword"


def test_an_unknown_environment_variable_key_is_refused_naming_it() -> None:
    [error] = _errors({"SUTURA__PROMPT__CATALOG_PROZE": "omitted"})
    assert (error.origin, error.key) == ("SUTURA__PROMPT__CATALOG_PROZE", "prompt.catalog_proze")


def test_a_bad_value_names_the_variable_that_set_it() -> None:
    [error] = _errors({"SUTURA__LIMITS__MAX_ROWS": "many"})
    assert error.origin == "SUTURA__LIMITS__MAX_ROWS"
    assert error.key == "limits.max_rows"


def test_catalog_prose_is_read_from_the_environment() -> None:
    settings = load_settings({"SUTURA__PROMPT__CATALOG_PROSE": "omitted"}).unwrap().settings
    assert settings.prompt.catalog_prose is CatalogProse.OMITTED


def test_a_missing_base_file_is_refused(tmp_path: Path) -> None:
    [error] = _errors({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert error.problem == "file not found"


def test_broken_yaml_names_the_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("limits:\n  max_rows: [1,\n")
    [error] = _errors({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert error.origin.endswith("base.yaml")
    assert (error.line, error.problem) == (3, "not valid YAML")
    assert error.sentence().endswith("base.yaml:3: not valid YAML")


def test_production_without_a_token_names_every_offending_key() -> None:
    errors = _errors(
        {"SUTURA_ENVIRONMENT": "production", "SUTURA__TOOLS__RUN_SQL__ENABLED": "true"}
    )
    assert {e.key for e in errors} == {"security.access_token", "tools.run_sql.source"}


def test_an_unknown_environment_name_is_refused() -> None:
    [error] = _errors({"SUTURA_ENVIRONMENT": "staging"})
    assert error.origin == "SUTURA_ENVIRONMENT"


def test_relative_paths_resolve_against_the_config_dir(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text("catalog: {dir: cat}\n")
    loaded = load_settings({"SUTURA_CONFIG_DIR": str(tmp_path)}).unwrap()
    assert loaded.resolve(loaded.settings.catalog.dir) == (tmp_path / "cat").resolve()


@pytest.mark.parametrize(
    ("written", "sentence"),
    [
        ("server: &s {port: 1}\nlimits: *s\n", "base.yaml:1: YAML anchors and aliases are not allowed; write each value out"),
        ('catalog:\n  dir: "cat\\ud800"\n', "base.yaml:2: catalog.dir: holds a lone surrogate escape, which is not text"),
        ("environment: development\n", "base.yaml:1: environment: is chosen by SUTURA_ENVIRONMENT alone, not by a layer"),
        ("server:\n  port: {x: 1}\n", "base.yaml:2: server.port.x: no key goes under server.port, which holds a single value"),
        ("limits:\n  max_rowz: 5\n", "base.yaml:2: limits.max_rowz: unknown key"),
        ("sources:\n  main: {path: x}\n", "base.yaml:2: sources.main.kind: missing required key; expected one of duckdb, postgres, spark"),
        ("- server\n", "base.yaml:1: expected a mapping of sections"),
        ("a: b\n\x00\n", "base.yaml:2: not valid YAML"),
    ],
)  # fmt: skip
def test_a_settings_file_problem_names_the_file_line_and_key(
    tmp_path: Path, written: str, sentence: str
) -> None:
    (tmp_path / "base.yaml").write_text(written, encoding="utf-8")
    [error] = _errors({"SUTURA_CONFIG_DIR": str(tmp_path)})
    assert error.sentence() == f"{tmp_path}/{sentence}"


@pytest.mark.parametrize(
    ("environ", "sentence"),
    [
        ({"SUTURA__SERVER____PORT": "1"}, "SUTURA__SERVER____PORT: server.\"\".port: each part between double underscores must name a key"),
        ({"SUTURA__SECURITY__ACCESS_TOKEN": "tok\udcffen-0123456789"}, "SUTURA__SECURITY__ACCESS_TOKEN: security.access_token: the value is not valid UTF-8"),
        ({"SUTURA__ENVIRONMENT": "development"}, "SUTURA__ENVIRONMENT: environment: is chosen by SUTURA_ENVIRONMENT alone, not by a layer"),
        ({"SUTURA__PROMPT__CATALOG_PROSE": "x\x1b[2J"}, "SUTURA__PROMPT__CATALOG_PROSE: prompt.catalog_prose: expected one of quoted, omitted"),
        ({"SUTURA__SERVER__PORT": "1", "SUTURA__server__port": "2"}, "SUTURA__server__port: server.port: SUTURA__SERVER__PORT sets this key too"),
    ],
)  # fmt: skip
def test_an_environment_variable_problem_names_the_variable_and_key(
    environ: dict[str, str], sentence: str
) -> None:
    assert [e.sentence() for e in _errors(environ)] == [sentence]


def test_a_settings_error_escapes_its_origin_and_key() -> None:
    error = SettingsError(origin="base\x1b[2J.yaml", line=2, key="a\u202eb", problem="unknown key")
    assert error.sentence() == "base\\u001b[2J.yaml:2: a\\u202eb: unknown key"


def test_a_higher_layer_of_the_same_kind_refines_a_source_key_by_key(tmp_path: Path) -> None:
    (tmp_path / "base.yaml").write_text(
        "sources:\n  main: {kind: postgres, host: db}\n"
        "security: {identity: single-user, single_user_because: one user runs the tests}\n"
    )
    (tmp_path / "test.yaml").write_text("sources:\n  main: {kind: postgres, port: 6432}\n")
    environ = {"SUTURA_CONFIG_DIR": str(tmp_path), "SUTURA_ENVIRONMENT": "test"}
    source = load_settings(environ).unwrap().settings.sources["main"]
    assert source == PostgresSourceSettings(host="db", port=6432)


_YAMLISH = st.sampled_from(
    ["\n", " ", ":", "- ", "[", "]", "{", "}", ",", "&a ", "*a", "!!str ", '"', "'", "\\ud800",
     "server", "port", "sources", "main", "kind", "duckdb", "limits", "max_rows", "1", "#"]
)  # fmt: skip


@given(st.lists(st.one_of(_YAMLISH, st.text(max_size=3)), max_size=40).map("".join))
@settings(max_examples=200, deadline=None)
def test_any_settings_file_gives_settings_or_printable_errors_never_an_exception(
    tmp_path_factory: pytest.TempPathFactory, written: str
) -> None:
    config = tmp_path_factory.getbasetemp() / "any_settings_file"
    config.mkdir(exist_ok=True)
    (config / "base.yaml").write_text(written, encoding="utf-8")
    result = load_settings({"SUTURA_CONFIG_DIR": str(config)})
    if not is_successful(result):
        assert all(e.sentence().isprintable() for e in result.failure())


_PART = st.sampled_from(["SERVER", "PORT", "SOURCES", "MAIN", "KIND", "PATH", "X", "", "server"])


@given(
    st.dictionaries(
        st.lists(_PART, min_size=1, max_size=5).map(lambda p: "SUTURA__" + "__".join(p)),
        st.sampled_from(["1", "postgres", "duckdb", "x", "", "\udcff"]),
        max_size=6,
    )
)
@settings(max_examples=300, deadline=None)
def test_any_environment_variables_give_settings_or_named_errors_never_an_exception(
    environ: dict[str, str],
) -> None:
    result = load_settings(environ)
    if not is_successful(result):
        assert all(e.sentence().isprintable() for e in result.failure())
