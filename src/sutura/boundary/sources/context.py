"""What opening a source needs beyond its own settings, read once by the composition."""

from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from sutura.core.settings import LimitsSettings


class SourceContext(NamedTuple):
    """Where relative paths start, the bounds, the catalog's time zone, and where secrets are.

    Attributes:
        base_dir: The directory of the settings files; relative paths start there.
        limits: The operator's bounds (the memory limit applies to an embedded engine).
        time_zone: The IANA zone every session of every engine is pinned to, so a period
            boundary never depends on the host's or the server's zone.
        environ: The environment the composition root read: secrets named by ``password_env``
            or ``token_env`` are looked up here, never in the process environment.
    """

    base_dir: Path
    limits: LimitsSettings
    time_zone: str
    environ: Mapping[str, str]

    def path(self, written: str) -> Path:
        """A path as written in the settings, made absolute against ``base_dir``."""
        path = Path(written)
        return path if path.is_absolute() else self.base_dir / path
