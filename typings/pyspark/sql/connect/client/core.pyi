from collections.abc import Iterable
from typing import Any, ClassVar

from pyspark.sql.connect.client.retries import RetryPolicy

class ChannelBuilder:
    PARAM_TOKEN: ClassVar[str]
    PARAM_USER_AGENT: ClassVar[str]
    def __init__(
        self,
        channelOptions: list[tuple[str, Any]] | None = None,
        params: dict[str, str] | None = None,
    ) -> None: ...
    def getDefault(self, key: str, default: object) -> object: ...
    def set(self, key: str, value: object) -> None: ...

class DefaultChannelBuilder(ChannelBuilder):
    def __init__(self, url: str, channelOptions: list[tuple[str, Any]] | None = None) -> None: ...
    @property
    def endpoint(self) -> str: ...

class SparkConnectClient:
    def __init__(
        self,
        connection: str | ChannelBuilder,
        user_id: str | None = None,
        channel_options: list[tuple[str, Any]] | None = None,
        retry_policy: dict[str, Any] | None = None,
        use_reattachable_execute: bool = True,
        session_hooks: list[object] | None = None,
        allow_arrow_batch_chunking: bool = True,
        preferred_arrow_chunk_size: int | None = None,
        rpc_deadlines: object | None = None,
        max_retry_exception_elapsed_time: float | None = None,
    ) -> None: ...
    def set_retry_policies(self, policies: Iterable[RetryPolicy]) -> None: ...
    def release_session(self) -> None: ...
