from collections.abc import Iterator, Mapping

from jsonschema.exceptions import ValidationError

class Draft202012Validator:
    # resolver is a deprecated RefResolver, format_checker a FormatChecker, registry a
    # referencing Registry: none of them is used by sutura.
    def __init__(
        self,
        schema: Mapping[str, object] | bool,
        resolver: object = None,
        format_checker: object = None,
        *,
        registry: object = ...,
        _resolver: object = None,
    ) -> None: ...
    def is_valid(self, instance: object) -> bool: ...
    def iter_errors(self, instance: object) -> Iterator[ValidationError]: ...
    @classmethod
    def check_schema(
        cls, schema: Mapping[str, object] | bool, format_checker: object = ...
    ) -> None: ...

def validate(
    instance: object,
    schema: Mapping[str, object] | bool,
    cls: type[Draft202012Validator] | None = None,
    *args: object,
    **kwargs: object,
) -> None: ...
