"""``sutura doctor``: what this installation is and whether its deployment can answer.

Every part is gathered on its own, so one that fails never hides the others: versions, the
settings layers found, the catalog, each source reachable or not (with the reason), then every
model and anchor checked as ``sutura check`` does.
"""

import platform
import sys
from collections.abc import Mapping
from importlib import metadata
from pathlib import Path
from typing import Final, NamedTuple

from returns.pipeline import is_successful

from sutura import __version__
from sutura.boundary.loading import Loaded
from sutura.boundary.settings_files import CONFIG_DIR_VAR, ENVIRONMENT_VAR, LoadedSettings
from sutura.boundary.sources.open import open_source
from sutura.boundary.startup import open_service
from sutura.core.settings import Environment
from sutura.core.sql.planning import dialect_of

LIBRARIES: Final = (
    "duckdb",
    "psycopg",
    "psycopg-binary",
    "pyspark",
    "msgspec",
    "returns",
    "sqlglot",
    "mcp",
    "litestar",
    "uvicorn",
    "pyyaml",
)
SETTINGS_PREFIX: Final = "SUTURA__"


class Layer(NamedTuple):
    """One settings layer: what it is, and whether (and where) it was found."""

    name: str
    found: bool
    where: str


class SourceState(NamedTuple):
    """A configured source: its kind and whether it opened (else the reason)."""

    alias: str
    kind: str
    problem: str | None


def versions() -> list[tuple[str, str]]:
    """sutura, Python and every driver and library it runs on (or ``not installed``)."""
    found = [("sutura", __version__), ("python", f"{platform.python_version()} ({sys.executable})")]
    for name in LIBRARIES:
        try:
            found.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            extra = " (the spark extra: pip install 'sutura[spark]')" if name == "pyspark" else ""
            found.append((name, f"not installed{extra}"))
    try:
        import psycopg

        libpq = psycopg.pq.version()  # 180006 is 18.6
        found.append(("libpq", f"{libpq // 10000}.{libpq % 10000}"))
    except ImportError:  # pragma: no cover - psycopg is a dependency
        found.append(("libpq", "not installed"))
    return found


def layers(environ: Mapping[str, str]) -> list[Layer]:
    """The settings layers in the order they apply, each found or not."""
    config_dir = environ.get(CONFIG_DIR_VAR)
    environment = environ.get(ENVIRONMENT_VAR, Environment.DEVELOPMENT.value)
    found = [Layer("built-in defaults", True, "")]
    if config_dir is None:
        found.append(Layer(f"{CONFIG_DIR_VAR}", False, "unset: no settings file is read"))
    else:
        directory = Path(config_dir).resolve()
        for name in ("base.yaml", f"{environment}.yaml"):
            path = directory / name
            found.append(Layer(name, path.is_file(), str(path)))
    variables = sorted(k for k in environ if k.startswith(SETTINGS_PREFIX))
    found.append(Layer("environment variables", bool(variables), ", ".join(variables) or "none"))
    return found


async def source_states(loaded: LoadedSettings, environ: Mapping[str, str]) -> list[SourceState]:
    """Every configured source opened and closed again: reachable, or why not."""
    settings = loaded.settings
    context = loaded.source_context(environ)
    states = []
    for alias, source_settings in sorted(settings.sources.items()):
        opened = await open_source(alias, source_settings, context)
        if is_successful(opened):
            await opened.unwrap().close()
        problem = None if is_successful(opened) else opened.failure()
        states.append(SourceState(alias, dialect_of(source_settings), problem))
    return states


async def service_problems(loaded: Loaded) -> list[str]:
    """What ``sutura check`` would report: models against sources, every anchor reproduced."""
    async with open_service(loaded, anchors=True) as started:
        return [] if is_successful(started) else started.failure()
