"""A capability's request body: decoded by the core's one codec, documented from its Struct.

Litestar's default body handling would decode a body itself and answer a malformed one in its
own words (which can echo the value sent). These DTOs hand the raw bytes to the core's
decoders instead (:mod:`sutura.core.tool.arguments`, which every surface's arguments go
through), so malformed arguments are the same reply here as anywhere
(``400 not_a_question`` / ``not_a_statement``, naming the field, never the value), while the
OpenAPI document still describes the body from the Struct itself.
"""

from collections.abc import Generator
from typing import Any, ClassVar, Generic, TypeVar

from litestar._openapi.schema_generation import SchemaCreator
from litestar.dto import AbstractDTO, DTOFieldDefinition
from litestar.dto._backend import DTOBackend
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition
from returns.pipeline import is_successful

from sutura.core.nouns.question import Question
from sutura.core.nouns.values import ValuesRequest
from sutura.core.raw.request import RawStatement
from sutura.core.tool.arguments import (
    decode_question,
    decode_statement_arguments,
    decode_values_request,
    malformed_question,
)
from sutura.core.tool.capability import Capability
from sutura.transports.http.replies import ReplyError

T = TypeVar("T")


class _CoreDecodedBody(AbstractDTO[T], Generic[T]):
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


class QuestionBody(_CoreDecodedBody[Question]):
    """``ask_metric``'s body: a question."""

    body_type = Question
    capability: ClassVar[Capability] = Capability.ASK_METRIC

    def decode_bytes(self, value: bytes) -> Question:
        """The question, or :class:`ReplyError` naming the field."""
        decoded = decode_question(value)
        if not is_successful(decoded):
            raise ReplyError(malformed_question(decoded.failure(), self.capability))
        return decoded.unwrap()


class CompiledQuestionBody(QuestionBody):
    """``compile_question``'s body: a question."""

    capability: ClassVar[Capability] = Capability.COMPILE_QUESTION


class StatementBody(_CoreDecodedBody[RawStatement]):
    """``run_sql``'s body: ``{"statement": "..."}``."""

    body_type = RawStatement

    def decode_bytes(self, value: bytes) -> RawStatement:
        """The statement, or :class:`ReplyError` naming the field."""
        decoded = decode_statement_arguments(value)
        if not is_successful(decoded):
            raise ReplyError(decoded.failure())
        return decoded.unwrap()


class ValuesBody(_CoreDecodedBody[ValuesRequest]):
    """``list_values``'s body: ``{"metric", "dimension", "search"?, "page_size"?, "offset"?}``."""

    body_type = ValuesRequest

    def decode_bytes(self, value: bytes) -> ValuesRequest:
        """The request, or :class:`ReplyError` naming the field."""
        decoded = decode_values_request(value)
        if not is_successful(decoded):
            raise ReplyError(decoded.failure())
        return decoded.unwrap()
