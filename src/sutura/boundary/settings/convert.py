"""The merged layers to :class:`Settings`; each problem names its key and the layer that wrote it.

Each source is converted on its own, so a problem names its alias (``sources.main.port``, where
msgspec would say ``sources[...]``). A problem never echoes a value: a setting with a closed
vocabulary is answered with the values it allows.
"""

import re
from collections.abc import Mapping, Sequence

import msgspec
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.settings.error import SettingsError
from sutura.boundary.settings.layers import Layer, error_at, sources_of
from sutura.boundary.settings.schema import allowed_values
from sutura.core.nouns.setting_keys import key_path
from sutura.core.settings import Settings, SourceSettings

_MISSING = re.compile(r"Object missing required field `(.+)`")

Problem = tuple[str, str]
"""(key path, problem)."""


def convert_settings(
    merged: Mapping[str, object], layers: Sequence[Layer]
) -> Result[Settings, list[SettingsError]]:
    """Validate the merged layers as a whole.

    Args:
        merged: every layer merged, lowest first.
        layers: the layers themselves, to name the one that wrote a key in error.

    Returns:
        The settings, or one problem per source and one for the rest.
    """
    sources = {str(alias): _source(str(alias), v) for alias, v in sources_of(merged).items()}
    rest = dict(merged)
    if isinstance(rest.get("sources"), dict):
        del rest["sources"]  # converted one by one above
    whole = _settings(rest)
    problems = [r.failure() for r in sources.values() if not is_successful(r)]
    if not is_successful(whole):
        problems.append(whole.failure())
    if problems:
        return Failure([error_at(key, problem, layers) for key, problem in problems])
    converted = {alias: result.unwrap() for alias, result in sorted(sources.items())}
    return Success(msgspec.structs.replace(whole.unwrap(), sources=converted))


def _source(alias: str, value: object) -> Result[SourceSettings, Problem]:
    try:
        source: SourceSettings = msgspec.convert(value, SourceSettings, strict=False)
    except msgspec.ValidationError as err:
        return Failure(_problem(err, key_path("sources", alias)))
    return Success(source)


def _settings(value: Mapping[str, object]) -> Result[Settings, Problem]:
    try:
        return Success(msgspec.convert(value, Settings, strict=False))
    except msgspec.ValidationError as err:
        return Failure(_problem(err, ""))


def _problem(err: msgspec.ValidationError, path: str) -> Problem:
    message, _, where = str(err).partition(" - at `$")
    key = _join(path, where.rstrip("`").lstrip("."))
    missing = _MISSING.fullmatch(message)
    if missing is not None:
        key = _join(key, missing[1])
        allowed = allowed_values(key)
        listed = "" if allowed is None else "; expected one of " + ", ".join(allowed)
        return key, f"missing required key{listed}"
    allowed = allowed_values(key)
    if allowed is not None:
        return key, "expected one of " + ", ".join(allowed)
    return key, (message[:1].lower() + message[1:]) or "invalid value"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path and key else path or key
