"""Settings loading: built-in defaults → base.yaml → <environment>.yaml → ``SUTURA__A__B``.

Each layer is checked on its own against the settings' keys, so an error names the file (and
line) or the environment variable, and the key path. The merged layers are then validated as a
whole (see ``boundary/settings/`` for reading, merging and validating).
"""

from collections.abc import Mapping
from pathlib import Path

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.settings.convert import convert_settings
from sutura.boundary.settings.error import SettingsError
from sutura.boundary.settings.layers import Layer, environment_layer, merge
from sutura.boundary.settings.schema import layer_key_errors
from sutura.boundary.settings.yaml_file import read_settings_file
from sutura.core.nouns.frozen import Frozen
from sutura.core.settings import Environment, Settings, unsafe_combinations

__all__ = ["LoadedSettings", "SettingsError", "load_settings"]

CONFIG_DIR_VAR = "SUTURA_CONFIG_DIR"
ENVIRONMENT_VAR = "SUTURA_ENVIRONMENT"


class LoadedSettings(Frozen, frozen=True):
    """Settings plus the directory relative paths in them are resolved against."""

    settings: Settings
    base_dir: Path

    def resolve(self, path: str) -> Path:
        """An absolute path for a path written in the settings."""
        return (self.base_dir / path).resolve()


def load_settings(environ: Mapping[str, str]) -> Result[LoadedSettings, list[SettingsError]]:
    """Read every layer named by ``environ`` and validate the result."""
    config_dir = environ.get(CONFIG_DIR_VAR)
    base_dir = Path(config_dir) if config_dir else Path.cwd()
    env_name = environ.get(ENVIRONMENT_VAR, Environment.DEVELOPMENT.value)
    if env_name not in {e.value for e in Environment}:
        allowed = ", ".join(e.value for e in Environment)
        return Failure(
            [SettingsError(origin=ENVIRONMENT_VAR, key="", problem=f"expected one of {allowed}")]
        )
    layers, errors = _layers(Path(config_dir) if config_dir else None, env_name, environ)
    merged: dict[str, object] = {"environment": env_name}
    for layer in layers:
        errors.extend(layer_key_errors(layer, merged))
        merged = merge(merged, layer.values)
    if errors:
        return Failure(errors)
    return (
        convert_settings(merged, layers)
        .bind(_safe_combination)
        .map(lambda s: LoadedSettings(settings=s, base_dir=base_dir.resolve()))
    )


def _layers(
    config_dir: Path | None, env_name: str, environ: Mapping[str, str]
) -> tuple[list[Layer], list[SettingsError]]:
    """The layers lowest first, and the problems of those that cannot be read."""
    layers: list[Layer] = []
    errors: list[SettingsError] = []
    if config_dir is not None:
        for name in ("base.yaml", f"{env_name}.yaml"):
            _read_layer(config_dir / name, layers, errors, required=name == "base.yaml")
    environment, variable_errors = environment_layer(environ)
    return [*layers, environment], errors + variable_errors


def _read_layer(
    path: Path, layers: list[Layer], errors: list[SettingsError], *, required: bool
) -> None:
    if not path.exists():
        if required:
            errors.append(SettingsError(origin=str(path), key="", problem="file not found"))
        return
    read = read_settings_file(path)
    if not is_successful(read):
        errors.append(read.failure())
    elif (layer := read.unwrap()) is not None:
        layers.append(layer)


def _safe_combination(settings: Settings) -> Result[Settings, list[SettingsError]]:
    problems = unsafe_combinations(settings)
    if problems:
        return Failure([SettingsError(origin="settings", key=k, problem=p) for k, p in problems])
    return Success(settings)
