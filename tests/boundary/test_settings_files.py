"""Settings layers: defaults, base.yaml, <environment>.yaml, SUTURA__A__B."""

from pathlib import Path

from returns.result import Success

from sutura.boundary.settings_files import SettingsError, load_settings
from sutura.core.catalog.prose import CatalogProse


def _errors(environ: dict[str, str]) -> list[SettingsError]:
    result = load_settings(environ)
    assert not isinstance(result, Success), result
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
    assert "not valid YAML" in error.problem and "line" in error.problem


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
