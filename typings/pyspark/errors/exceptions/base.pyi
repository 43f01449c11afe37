from typing import Any

class PySparkException(Exception):
    def __init__(
        self,
        message: str | None = None,
        errorClass: str | None = None,
        messageParameters: dict[str, str] | None = None,
        contexts: list[Any] | None = None,
    ) -> None: ...
    def getCondition(self) -> str | None: ...
    def getSqlState(self) -> str | None: ...
