from typing import Any

import pytest

class LoadGroupScheduling:
    def __init__(self, config: pytest.Config, log: Any | None = None) -> None: ...
    def _split_scope(self, nodeid: str) -> str: ...
