from collections.abc import Iterable, Mapping

class _Error(Exception):
    message: str
    def __init__(
        self,
        message: str,
        validator: str = ...,
        path: Iterable[str | int] = (),
        cause: Exception | None = None,
        context: Iterable[_Error] = (),
        validator_value: object = ...,
        instance: object = ...,
        schema: Mapping[str, object] | bool = ...,
        schema_path: Iterable[str | int] = (),
        parent: _Error | None = None,
        type_checker: object = ...,
    ) -> None: ...

class ValidationError(_Error): ...
