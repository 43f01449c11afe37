"""The one decoder of every capability's arguments, from whatever a transport received.

HTTP hands over the body's bytes, MCP the arguments it parsed, the command line a document it
built from its flags, the Python API a Struct it already holds. Each becomes the capability's
input Struct here, or :class:`~sutura.core.tool.reply.Malformed` naming the field and the
problem — never the value sent.

>>> decode_arguments(Capability.DESCRIBE_CATALOG, {}).unwrap()
CatalogRequest(search=None, page=1)
>>> decode_arguments(Capability.DESCRIBE_CATALOG, {"page": 0}).failure().sentence()
'malformed arguments: $.page: Expected `int` >= 1'
>>> decode_arguments(Capability.RUN_SQL, {"statement": 1}).failure().sentence()
'malformed statement: $.statement: Expected `str`, got `int`'
"""

from collections.abc import Mapping
from typing import Any, assert_never

from returns.result import Failure, Result, Success

from sutura.core.nouns.question import (
    Question,
    QuestionError,
    convert_question,
    decode_question_json,
)
from sutura.core.raw.request import RawStatement
from sutura.core.text.escape import has_lone_surrogate
from sutura.core.tool.capability import Capability, CatalogRequest, Request
from sutura.core.tool.codec import (
    CodecError,
    convert_catalog_arguments,
    convert_statement,
    decode_catalog_arguments,
    decode_statement,
)
from sutura.core.tool.reply import Malformed

Arguments = bytes | str | Mapping[str, Any] | Request | None
"""A capability's arguments as a transport holds them: JSON text, parsed JSON, or the Struct."""


def decode_arguments(capability: Capability, arguments: Arguments) -> Result[Request, Malformed]:
    """The capability's input, or what is malformed about the arguments."""
    match capability:
        case Capability.DESCRIBE_CATALOG:
            return decode_catalog_request(arguments).map(_request)
        case Capability.ASK_METRIC:
            return decode_question(arguments).map(_request).alt(malformed_question)
        case Capability.RUN_SQL:
            return decode_statement_arguments(arguments).map(_request)
        case _:
            assert_never(capability)


def _request(request: Request) -> Request:
    return request


def malformed_question(error: QuestionError) -> Malformed:
    """A malformed question as a reply."""
    return Malformed(capability=Capability.ASK_METRIC, field=error.field, problem=error.problem)


def decode_catalog_request(arguments: Arguments) -> Result[CatalogRequest, Malformed]:
    """``describe_catalog``'s input: nothing, or an object with ``search`` and ``page``."""
    if isinstance(arguments, CatalogRequest):
        return Success(arguments)
    if isinstance(arguments, bytes | str):
        decoded = decode_catalog_arguments(arguments)
    else:
        decoded = convert_catalog_arguments({} if arguments is None else arguments)
    return decoded.alt(
        lambda error: Malformed(
            capability=Capability.DESCRIBE_CATALOG, field=error.path, problem=error.problem
        )
    )


def decode_question(arguments: Arguments) -> Result[Question, QuestionError]:
    """``ask_metric``'s input: a question."""
    if isinstance(arguments, Question):
        return Success(arguments)
    if isinstance(arguments, bytes | str):
        return decode_question_json(arguments)
    if isinstance(arguments, Mapping):
        return convert_question(dict(arguments))
    return convert_question({} if arguments is None else arguments)


def decode_statement_arguments(arguments: Arguments) -> Result[RawStatement, Malformed]:
    """``run_sql``'s input: one statement."""
    return _statement(arguments).alt(
        lambda error: Malformed(
            capability=Capability.RUN_SQL, field=error.path, problem=error.problem
        )
    )


def _statement(arguments: Arguments) -> Result[RawStatement, CodecError]:
    if isinstance(arguments, RawStatement):
        return _text(arguments)
    if isinstance(arguments, bytes | str):
        return decode_statement(arguments).bind(_text)
    return convert_statement({} if arguments is None else arguments)


def _text(statement: RawStatement) -> Result[RawStatement, CodecError]:
    if has_lone_surrogate(statement.statement):
        return Failure(CodecError(path="$.statement", problem="a lone surrogate is not text"))
    return Success(statement)
