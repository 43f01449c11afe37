class RetryPolicy:
    def __init__(
        self,
        max_retries: int | None = None,
        initial_backoff: int = 1000,
        max_backoff: int | None = None,
        backoff_multiplier: float = 1.0,
        jitter: int = 0,
        min_jitter_threshold: int = 0,
        recognize_server_retry_delay: bool = False,
        max_server_retry_delay: int | None = None,
    ) -> None: ...

class DefaultPolicy(RetryPolicy):
    def __init__(
        self,
        max_retries: int | None = 15,
        backoff_multiplier: float = 4.0,
        initial_backoff: int = 50,
        max_backoff: int | None = 60000,
        jitter: int = 500,
        min_jitter_threshold: int = 2000,
        recognize_server_retry_delay: bool = True,
        max_server_retry_delay: int | None = 600000,
    ) -> None: ...
