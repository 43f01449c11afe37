"""A request body decoded by the core's own decoder, and documented from its Struct.

Litestar's default body handling would decode a body itself and answer a malformed one in its
own words (which can echo the value sent). A subclass of :class:`CoreDecodedBody` hands the raw
bytes to a core decoder instead, so a malformed body is a failure naming the field, never the
value, while the OpenAPI document still describes the body from the Struct itself.
"""

from collections.abc import Generator
from typing import Any, ClassVar, TypeVar

from litestar._openapi.schema_generation import SchemaCreator
from litestar.dto import AbstractDTO, DTOFieldDefinition
from litestar.dto._backend import DTOBackend
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition

T = TypeVar("T")


class CoreDecodedBody(AbstractDTO[T]):
    """Decode with the core (``decode_bytes`` in the subclass); describe as ``body_type``."""

    body_type: ClassVar[type[Any]]

    def decode_builtins(self, value: dict[str, Any]) -> T:
        """Not reachable: a body arrives as JSON bytes only."""
        raise NotImplementedError("a body is decoded from bytes")

    @classmethod
    def create_for_field_definition(
        cls,
        field_definition: FieldDefinition,
        handler_id: str,
        backend_cls: type[DTOBackend] | None = None,
    ) -> None:
        """Nothing to build: the decoder is the core's."""

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: SchemaCreator
    ) -> Reference | Schema:
        """The request body's schema is the Struct's."""
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(cls.body_type))

    @classmethod
    def generate_field_definitions(
        cls, model_type: type[Any]
    ) -> Generator[DTOFieldDefinition, None, None]:
        """No transfer model: the Struct is decoded whole."""
        yield from ()

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        """No nested transfer models."""
        return False
