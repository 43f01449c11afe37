"""What the composition root hands every transport."""

from typing import Protocol

from returns.result import Result

from sutura.boundary.answering import Service
from sutura.boundary.startup import Loaded


class Wiring(Protocol):
    """The two ways to start: settings and catalog only, or a running service."""

    def load(self) -> Result[Loaded, list[str]]:
        """Settings and catalog, no data touched."""
        ...

    async def start(
        self, *, anchors: bool = True, context: Loaded | None = None
    ) -> Result[Service, list[str]]:
        """A running service (sources open, anchors reproduced unless told otherwise)."""
        ...
