"""The question as a request body: decoded by sutura's own decoder, documented by litestar.

Litestar's default body handling would decode a question itself and answer a malformed one with
its own words (which can echo the value sent). This DTO hands the raw bytes to
:func:`~sutura.core.question.decode_question_json` instead, so a malformed question is
``400 not_a_question`` naming the field, never the value, while the OpenAPI document still
describes the request body from the :class:`~sutura.core.question.Question` Struct itself.
"""

from collections.abc import Generator
from typing import Any

from litestar._openapi.schema_generation import SchemaCreator
from litestar.dto import AbstractDTO, DTOFieldDefinition
from litestar.dto._backend import DTOBackend
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition
from returns.result import Success

from sutura.core.question import Question, decode_question_json
from sutura.transports.http.errors import MalformedQuestionError


class QuestionBody(AbstractDTO[Question]):
    """Decode ``data: Question`` with the question decoder; describe it as the Struct."""

    def decode_bytes(self, value: bytes) -> Question:
        """The question, or :class:`MalformedQuestionError` naming the field."""
        decoded = decode_question_json(value)
        if not isinstance(decoded, Success):
            raise MalformedQuestionError(decoded.failure())
        question: Question = decoded.unwrap()
        return question

    def decode_builtins(self, value: dict[str, Any]) -> Question:
        """Not reachable: a question arrives as JSON bytes only."""
        raise NotImplementedError("a question is decoded from bytes")

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
        """The request body's schema is the question Struct's."""
        return schema_creator.for_field_definition(FieldDefinition.from_annotation(Question))

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
