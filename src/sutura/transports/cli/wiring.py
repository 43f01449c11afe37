"""What the composition root hands every transport."""

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from returns.result import Result

if TYPE_CHECKING:  # types only: a command imports the loading it uses
    from sutura.boundary.loading import Loaded, SettingsRead
    from sutura.boundary.settings_files import LoadedSettings


class Wiring(Protocol):
    """Settings and catalog, read from the environment the composition root read."""

    @property
    def environ(self) -> Mapping[str, str]:
        """The environment the composition root read (settings variables, secrets)."""
        ...

    def load(self, settings_read: "SettingsRead | None" = None) -> "Result[Loaded, list[str]]":
        """Settings and catalog, no data touched; every problem as one operator sentence.
        ``settings_read`` is told the settings once they are valid, before the catalog is
        read."""
        ...

    def settings(self) -> "Result[LoadedSettings, list[str]]":
        """The settings alone (no catalog read); every problem as one operator sentence."""
        ...
