"""The raw tool's request body, ``{"statement": "..."}``: decoded by the core's codec.

As for a question (:mod:`.body`), litestar's own decoding would answer a malformed body in its
own words, which can echo the value sent. This DTO hands the bytes to
:func:`~sutura.core.codec.decode_statement`, so a malformed body is ``400 not_a_statement``
naming the field, never the value, and the OpenAPI document still describes the body from the
:class:`~sutura.core.raw_statement.RawStatement` Struct.
"""

from collections.abc import Generator
from typing import Any

from litestar._openapi.schema_generation import SchemaCreator
from litestar.dto import AbstractDTO, DTOFieldDefinition
from litestar.dto._backend import DTOBackend
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition
from returns.result import Success

from sutura.core.codec import CodecError, decode_statement
from sutura.core.raw_input import RawStatement
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.wire import not_a_statement

EMPTY_BODY = CodecError(path="$", problem="the body is empty")


class StatementBody(AbstractDTO[RawStatement]):
    """Decode ``data: RawStatement`` with the core's decoder; describe it as the Struct."""

    def decode_bytes(self, value: bytes) -> RawStatement:
        """The statement, or the ``not_a_statement`` failure naming the field."""
        decoded = decode_statement(value)
        if not isinstance(decoded, Success):
            raise HttpFailureError(not_a_statement(decoded.failure()))
        statement: RawStatement = decoded.unwrap()
        return statement

    def decode_builtins(self, value: dict[str, Any]) -> RawStatement:
        """Not reachable: a statement arrives as JSON bytes only."""
        raise NotImplementedError("a statement is decoded from bytes")

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
        """The request body's schema is the statement Struct's."""
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(RawStatement))

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
