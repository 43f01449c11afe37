from typing import AnyStr, Generic, final

@final
class Match(Generic[AnyStr]): ...

@final
class Pattern(Generic[AnyStr]):
    def match(
        self,
        string: AnyStr,
        pos: int | None = None,
        endpos: int | None = None,
        concurrent: bool | None = None,
        partial: bool = False,
        timeout: float | None = None,
    ) -> Match[AnyStr] | None: ...

def compile(
    pattern: AnyStr | Pattern[AnyStr],
    flags: int = 0,
    ignore_unused: bool = False,
    cache_pattern: bool | None = None,
    **kwargs: object,
) -> Pattern[AnyStr]: ...
