from collections.abc import Iterator
from typing import Any

from typing_extensions import disjoint_base

class DataType:
    def simpleString(self) -> str: ...

class AtomicType(DataType): ...

class StructField(DataType):
    name: str
    dataType: DataType
    nullable: bool
    metadata: dict[str, object]
    def __init__(
        self,
        name: str,
        dataType: DataType,
        nullable: bool = True,
        metadata: dict[str, Any] | None = None,
    ) -> None: ...

class StructType(DataType):
    fields: list[StructField]
    def __init__(self, fields: list[StructField] | None = None) -> None: ...
    def __iter__(self) -> Iterator[StructField]: ...

@disjoint_base
class Row(tuple[object, ...]): ...
