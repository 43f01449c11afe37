"""Settings loading: built-in defaults → base.yaml → <environment>.yaml → ``SUTURA__A__B``.

Each layer is checked on its own for unknown keys, so an error names the file (or the
environment variable) and the key path. The merged document is then validated as a whole.
"""

from collections.abc import Mapping
from pathlib import Path

import msgspec
import msgspec.inspect as mi
import yaml
from returns.result import Failure, Result, Success

from sutura.core.base import Frozen
from sutura.core.settings import Environment, Settings, unsafe_combinations

ENV_PREFIX = "SUTURA__"
CONFIG_DIR_VAR = "SUTURA_CONFIG_DIR"
ENVIRONMENT_VAR = "SUTURA_ENVIRONMENT"


class SettingsError(Frozen, frozen=True):
    """One problem with the settings: where it came from, which key, and what is wrong."""

    origin: str
    key: str
    problem: str

    def sentence(self) -> str:
        """``origin: key: problem``."""
        return f"{self.origin}: {self.key or '(document)'}: {self.problem}"


class LoadedSettings(Frozen, frozen=True):
    """Settings plus the directory relative paths in them are resolved against."""

    settings: Settings
    base_dir: Path

    def resolve(self, path: str) -> Path:
        """An absolute path for a path written in the settings."""
        return (self.base_dir / path).resolve()


Layer = tuple[str, dict[str, object]]


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
    layers: list[Layer] = []
    errors: list[SettingsError] = []
    if config_dir:
        for name in ("base.yaml", f"{env_name}.yaml"):
            _read_layer(Path(config_dir) / name, layers, errors, required=name == "base.yaml")
    layers.append(("environment", _environment_layer(environ)))
    for origin, layer in layers:
        errors.extend(_named(e) for e in _unknown_keys(origin, layer, mi.type_info(Settings), ""))
    if errors:
        return Failure(errors)
    merged: dict[str, object] = {"environment": env_name}
    for _, layer in layers:
        merged = _merge(merged, layer)
    return (
        _validate(merged, layers)
        .bind(_safe_combination)
        .map(lambda s: LoadedSettings(settings=s, base_dir=base_dir.resolve()))
    )


def _safe_combination(settings: Settings) -> Result[Settings, list[SettingsError]]:
    problems = unsafe_combinations(settings)
    if problems:
        return Failure([SettingsError(origin="settings", key=k, problem=p) for k, p in problems])
    return Success(settings)


def _read_layer(
    path: Path, layers: list[Layer], errors: list[SettingsError], *, required: bool
) -> None:
    if not path.exists():
        if required:
            errors.append(SettingsError(origin=str(path), key="", problem="file not found"))
        return
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        errors.append(
            SettingsError(
                origin=str(path), key="", problem=f"cannot be read ({type(err).__name__})"
            )
        )
        return
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        errors.append(SettingsError(origin=str(path), key="", problem=f"{where}not valid YAML"))
        return
    if data is None:
        return
    if not isinstance(data, dict):
        errors.append(
            SettingsError(origin=str(path), key="", problem="expected a mapping of sections")
        )
        return
    layers.append((str(path), data))


def _environment_layer(environ: Mapping[str, str]) -> dict[str, object]:
    layer: dict[str, object] = {}
    for name in sorted(environ):
        if not name.startswith(ENV_PREFIX):
            continue
        parts = [p.lower() for p in name[len(ENV_PREFIX) :].split("__")]
        node = layer
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            node = child if isinstance(child, dict) else {}
        node[parts[-1]] = environ[name]
    return layer


def _unknown_keys(origin: str, value: object, info: mi.Type, path: str) -> list[SettingsError]:
    """Every key of ``value`` that the settings schema ``info`` does not know."""
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        if structs and isinstance(value, dict):
            kind = value.get(structs[0].tag_field or "")
            chosen = [t for t in structs if t.tag == kind] or structs
            return min((_unknown_keys(origin, value, t, path) for t in chosen), key=len)
        return []
    if isinstance(info, mi.DictType) and isinstance(value, dict):
        return [
            e
            for k, v in value.items()
            for e in _unknown_keys(origin, v, info.value_type, _join(path, str(k)))
        ]
    if not (isinstance(info, mi.StructType) and isinstance(value, dict)):
        return []
    fields = {f.encode_name: f.type for f in info.fields}
    errors: list[SettingsError] = []
    for key, child in value.items():
        if key == info.tag_field:
            continue
        if key not in fields:
            errors.append(
                SettingsError(origin=origin, key=_join(path, str(key)), problem="unknown key")
            )
        else:
            errors.extend(_unknown_keys(origin, child, fields[key], _join(path, str(key))))
    return errors


def _named(error: SettingsError) -> SettingsError:
    """An environment-variable error names the variable itself."""
    if error.origin != "environment":
        return error
    variable = ENV_PREFIX + error.key.upper().replace(".", "__")
    return SettingsError(origin=variable, key=error.key, problem=error.problem)


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _merge(base: dict[str, object], top: Mapping[str, object]) -> dict[str, object]:
    merged = dict(base)
    for key, value in top.items():
        below = merged.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged[key] = _merge(below, value)
        else:
            merged[key] = value
    return merged


def _validate(
    merged: dict[str, object], layers: list[Layer]
) -> Result[Settings, list[SettingsError]]:
    try:
        return Success(msgspec.convert(merged, Settings, strict=False))
    except msgspec.ValidationError as err:
        message, _, where = str(err).partition(" - at `$")
        key = where.rstrip("`").lstrip(".")
        problem = message[0].lower() + message[1:] if message else "invalid value"
        return Failure([SettingsError(origin=_origin_of(key, layers), key=key, problem=problem)])


def _origin_of(key: str, layers: list[Layer]) -> str:
    """The last layer that set ``key`` (an environment variable is named as such)."""
    parts = [p for p in key.replace("[", ".").replace("]", "").split(".") if p]
    for origin, layer in reversed(layers):
        node: object = layer
        for part in parts:
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            if origin == "environment":
                return ENV_PREFIX + "__".join(p.upper() for p in parts)
            return origin
    return "settings"
