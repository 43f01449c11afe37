"""The question as a request body: decoded by sutura's own decoder, documented by litestar.

Litestar's default body handling would decode a question itself and answer a malformed one with
its own words (which can echo the value sent). This DTO hands the raw bytes to
:func:`~sutura.core.question.model.decode_question_json` instead, so a malformed question is
``400 not_a_question`` naming the field, never the value, while the OpenAPI document still
describes the request body from the :class:`~sutura.core.question.model.Question` Struct itself.
"""

from returns.result import Success

from sutura.core.question.model import Question, decode_question_json
from sutura.transports.http.core_body import CoreDecodedBody
from sutura.transports.http.errors import MalformedQuestionError


class QuestionBody(CoreDecodedBody[Question]):
    """Decode ``data: Question`` with the question decoder; describe it as the Struct."""

    body_type = Question

    def decode_bytes(self, value: bytes) -> Question:
        """The question, or :class:`MalformedQuestionError` naming the field."""
        decoded = decode_question_json(value)
        if not isinstance(decoded, Success):
            raise MalformedQuestionError(decoded.failure())
        question: Question = decoded.unwrap()
        return question
