"""The context a test opens a source in: as the composition would give it, explicitly."""

from collections.abc import Mapping
from pathlib import Path

from sutura.boundary.sources.context import SourceContext
from sutura.core.settings import LimitsSettings


def context(
    base_dir: Path,
    limits: LimitsSettings | None = None,
    *,
    time_zone: str = "UTC",
    environ: Mapping[str, str] | None = None,
) -> SourceContext:
    """A source context: relative paths from ``base_dir``, secrets from ``environ`` only."""
    return SourceContext(
        base_dir=base_dir,
        limits=limits or LimitsSettings(),
        time_zone=time_zone,
        environ=environ or {},
    )
