from typing import Any

import grpc
from pyspark.errors.exceptions.base import PySparkException

class SparkConnectException(PySparkException): ...

class SparkConnectGrpcException(SparkConnectException):
    def __init__(
        self,
        message: str | None = None,
        errorClass: str | None = None,
        messageParameters: dict[str, str] | None = None,
        reason: str | None = None,
        sql_state: str | None = None,
        server_stacktrace: str | None = None,
        display_server_stacktrace: bool = False,
        contexts: list[Any] | None = None,
        grpc_status_code: grpc.StatusCode = ...,
        breaking_change_info: dict[str, Any] | None = None,
    ) -> None: ...
    def getGrpcStatusCode(self) -> grpc.StatusCode: ...
