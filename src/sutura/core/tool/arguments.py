"""The decoders of every capability's arguments, from whatever a transport received.

HTTP hands over the Struct its body decoded to (a body is decoded here too, by
:mod:`sutura.transports.http.body`) or, for the catalog, its query parameters; MCP the
arguments it parsed; the console a body's bytes; the command line a document it built from its
flags; the Python API a Struct it already holds. Each becomes the capability's input Struct
here, or :class:`~sutura.core.tool.reply.Malformed` naming the field and the problem — never
the value sent.

>>> decode_catalog_request({}).unwrap()
CatalogRequest(search=None, page=1)
>>> decode_catalog_request({"page": 0}).failure().sentence()
'malformed arguments: $.page: Expected `int` >= 1'
>>> decode_statement_arguments({"statement": 1}).failure().sentence()
'malformed statement: $.statement: Expected `str`, got `int`'
>>> decode_question({"metrics": ["revenue"], "grain": "hour"}).failure().field
'$.grain'
"""

from collections.abc import Mapping
from typing import Any, Final

import msgspec
from returns.result import Failure, Result, Success

from sutura.core.nouns.question import (
    Question,
    QuestionError,
    convert_question,
    decode_question_json,
)
from sutura.core.nouns.values import ValuesRequest
from sutura.core.raw.request import RawStatement
from sutura.core.text.escape import has_lone_surrogate
from sutura.core.tool.capability import Capability, CatalogRequest, Request
from sutura.core.tool.codec import (
    CodecError,
    convert_catalog_arguments,
    convert_statement,
    convert_values_arguments,
    decode_catalog_arguments,
    decode_statement,
    decode_values_arguments,
)
from sutura.core.tool.reply import Malformed

Arguments = bytes | str | Mapping[str, Any] | Request | None
"""A capability's arguments as a transport holds them: JSON text, parsed JSON, or the Struct."""


def malformed_question(
    error: QuestionError, capability: Capability = Capability.ASK_METRIC
) -> Malformed:
    """A malformed question as ``capability``'s reply (``ask_metric``'s unless another)."""
    return Malformed(capability=capability, field=error.field, problem=error.problem)


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


def decode_values_request(arguments: Arguments) -> Result[ValuesRequest, Malformed]:
    """``list_values``'s input: a metric, one of its dimensions, a search and a page."""
    if isinstance(arguments, ValuesRequest):
        decoded = convert_values_arguments(msgspec.to_builtins(arguments))
    elif isinstance(arguments, bytes | str):
        decoded = decode_values_arguments(arguments)
    else:
        decoded = convert_values_arguments({} if arguments is None else arguments)
    return decoded.alt(
        lambda error: Malformed(
            capability=Capability.LIST_VALUES, field=error.path, problem=error.problem
        )
    )


def decode_question(arguments: Arguments) -> Result[Question, QuestionError]:
    r"""``ask_metric``'s input: a question, every text of it text.

    >>> decode_question({"metrics": ["rev\ud800"], "grain": "day", "range": {}}).failure()
    QuestionError(field='$.metrics[0]', problem='a lone surrogate is not text')
    """
    if isinstance(arguments, bytes | str):
        return decode_question_json(arguments)  # strict UTF-8 JSON: no lone surrogate passes
    if isinstance(arguments, Question):
        decoded: Result[Question, QuestionError] = Success(arguments)
    elif isinstance(arguments, Mapping):
        decoded = convert_question(dict(arguments))
    else:
        decoded = convert_question({} if arguments is None else arguments)
    return decoded.bind(_question_text)


def _question_text(question: Question) -> Result[Question, QuestionError]:
    """The question, or the path of its first text holding a lone surrogate (JSON decoders
    other than msgspec, a command line's undecodable bytes and a Python caller's Struct pass
    one; no statement, digest or audit record can carry it). Strict UTF-8 JSON cannot carry
    one either, so a question that encodes to it is text throughout: one C-level pass, and
    the walk naming the field only when it does not."""
    try:
        _STRICT.encode(question)
    except Exception:  # whatever stops the encoder, the walk decides
        pass
    else:
        return Success(question)
    field = _surrogate_at(msgspec.to_builtins(question), "$")
    if field is None:
        return Success(question)
    return Failure(QuestionError(field=field, problem="a lone surrogate is not text"))


_STRICT: Final = msgspec.json.Encoder()


def _surrogate_at(value: object, path: str) -> str | None:
    """The path of the first text under ``value`` that holds a lone surrogate, if any."""
    if isinstance(value, str):
        return path if has_lone_surrogate(value) else None
    if isinstance(value, list):
        items = ((f"{path}[{i}]", item) for i, item in enumerate(value))
    elif isinstance(value, dict):
        items = ((f"{path}.{key}", item) for key, item in value.items())
    else:
        return None
    return next((found for at, item in items if (found := _surrogate_at(item, at))), None)


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
