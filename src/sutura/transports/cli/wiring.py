"""What the composition root hands every transport."""

from typing import Protocol

from returns.result import Result

from sutura.boundary.startup import Loaded


class Wiring(Protocol):
    """Settings and catalog, read from the environment the composition root read."""

    def load(self) -> Result[Loaded, list[str]]:
        """Settings and catalog, no data touched; every problem as one operator sentence."""
        ...
