"""The one codec of structured halves, and the one pairing of every result's two halves.

Every result is one value rendered twice. The functions here build both halves from that value
or refuse both: a value strict UTF-8 JSON cannot carry (a lone surrogate) becomes the typed
refusal ``value_not_representable`` on every surface, never one half with it and one without.
Decoding structured halves is here too, the one place their msgspec ``ValidationError``
becomes a typed value (:class:`CodecError`, naming a path and a problem, never echoing a
value); a question has its own, ``question.QuestionError``.

>>> from sutura.core.nouns.refusal import RefusalCode, refusal
>>> from sutura.core.nouns.answer import Refused
>>> halves_of(Refused(reason=refusal(RefusalCode.METRIC_UNKNOWN))).structured[:40]
b'{"outcome":"refusal","reason":{"code":"m'
"""

import re
from collections.abc import Iterator
from typing import Any, Final, NamedTuple, TypeVar, assert_never

import msgspec
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.core.catalog.view.catalog import CatalogBody, CatalogView
from sutura.core.catalog.view.wire import Description, prose_of
from sutura.core.nouns.answer import Answer, Outcome, Refused
from sutura.core.nouns.frozen import Frozen
from sutura.core.nouns.prose import Carried, CatalogProse
from sutura.core.nouns.refusal import Refusal, RefusalCode, refusal
from sutura.core.nouns.rows import WrittenRows
from sutura.core.nouns.values import Values, ValuesRequest
from sutura.core.raw.outcome import (
    RawOutcome,
    RawRefusal,
    RawRefusalCode,
    raw_refusal,
    raw_refusal_text,
    render_raw,
)
from sutura.core.raw.request import RawStatement
from sutura.core.sql.compiled import CompiledQuery
from sutura.core.sql.shown import ShownStatement, shown_statement, shown_text
from sutura.core.text.escape import has_lone_surrogate
from sutura.core.text.render import render_answer, render_refusal
from sutura.core.text.values import render_values
from sutura.core.tool.capability import CatalogRequest

T = TypeVar("T")


class Halves(NamedTuple):
    """Both halves of one result: the text a model reads and the JSON a program reads."""

    text: str
    structured: bytes

    def structured_object(self) -> Any:
        """The structured half as plain JSON values (for a transport that wants a dict)."""
        return msgspec.json.decode(self.structured)


class CodecError(Frozen, frozen=True):
    """A structured half that does not decode: the JSON path and the problem, no value."""

    path: str
    problem: str

    def sentence(self) -> str:
        """One line naming the path and the problem.

        >>> CodecError(path="$.rows[0]", problem="Expected `array`, got `int`").sentence()
        'malformed structured value: $.rows[0]: Expected `array`, got `int`'
        """
        return f"malformed structured value: {self.path}: {self.problem}"


def _enc_hook(value: object) -> object:
    if isinstance(value, Carried):
        return value.text
    if isinstance(value, WrittenRows):  # an answer's rows: the JSON they were read from
        return msgspec.Raw(value.json())
    raise NotImplementedError(f"no JSON form for {type(value).__name__}")


def _dec_hook(kind: type, value: object) -> object:
    # Present on the wire means quoted; a body claiming "omitted" beside one is refused below.
    if kind is Carried and isinstance(value, str):
        return Carried.under(CatalogProse.QUOTED, value)
    raise NotImplementedError(f"no JSON form for {kind.__name__}")


def schema_hook(kind: type) -> dict[str, Any]:
    """For ``msgspec.json.schema(..., schema_hook=schema_hook)``: a carried description is a string.

    >>> msgspec.json.schema(Carried, schema_hook=schema_hook)
    {'type': 'string'}
    """
    if kind is Carried:
        return {"type": "string"}
    raise NotImplementedError(f"no JSON schema for {kind.__name__}")


_ENCODER: Final = msgspec.json.Encoder(enc_hook=_enc_hook)
_UNREPRESENTABLE: Final = refusal(RefusalCode.VALUE_NOT_REPRESENTABLE)


def encode(value: msgspec.Struct) -> Result[bytes, Refusal]:
    r"""Encode a structured half; a lone surrogate anywhere refuses the whole value.

    >>> encode(refusal(RefusalCode.METRIC_UNKNOWN)).unwrap()[:26]
    b'{"code":"metric_unknown","'
    """
    try:
        return Success(_ENCODER.encode(value))
    except UnicodeEncodeError:
        return Failure(_UNREPRESENTABLE)


def outcome_halves(outcome: Outcome) -> Result[Halves, Refusal]:
    """Both halves of an answer or a refusal, or the refusal that replaces both."""
    return _text_half(outcome).bind(
        lambda rendered: encode(outcome).map(lambda data: Halves(rendered, data))
    )


def _text_half(outcome: Outcome) -> Result[str, Refusal]:
    match outcome:
        case Answer():
            return render_answer(outcome)
        case Refused():
            return Success(render_refusal(outcome.reason))
        case _:
            assert_never(outcome)


def decoded_outcome_text(outcome: Outcome) -> Result[str, Refusal]:
    """The text half of an outcome :func:`decode_outcome` returned, or the refusal of both halves.

    The one value the structured half cannot encode is a lone surrogate, and a decoded outcome
    holds none (strict UTF-8 cannot carry one and the decoder refuses its escape): the text
    half is the only one that can still refuse such an outcome, so the bytes of the structured
    half are not built just to be dropped (``sutura render`` to text).
    """
    return _text_half(outcome)


def halves_of(outcome: Outcome) -> Halves:
    """Both halves of ``outcome``, or of the refusal that replaces both."""
    result = outcome_halves(outcome)
    if is_successful(result):
        return result.unwrap()
    reason = result.failure()
    return Halves(render_refusal(reason), _ENCODER.encode(Refused(reason=reason)))


def catalog_halves(view: CatalogView) -> Result[Halves, Refusal]:
    """Both halves of the catalog view, from the one value, or a refusal for both."""
    return view.text().bind(
        lambda text: encode(view.body).map(lambda data: Halves(text=text, structured=data))
    )


def compiled_halves(query: CompiledQuery) -> Result[tuple[Halves, ShownStatement], Refusal]:
    """Both halves of a compiled question (what ``compile_question`` shows) and the value of
    its structured half, or the refusal that replaces both."""
    shown = shown_statement(query)
    return encode(shown).map(lambda data: (Halves(shown_text(query), data), shown))


def values_halves(page: Values) -> Result[Halves, Refusal]:
    """Both halves of a page of values, or the refusal that replaces both."""
    return render_values(page).bind(
        lambda text: encode(page).map(lambda data: Halves(text=text, structured=data))
    )


def raw_outcome_halves(outcome: RawOutcome) -> Result[Halves, RawRefusal]:
    """Both halves of a raw outcome, or the raw refusal that replaces both."""
    unrepresentable = raw_refusal(RawRefusalCode.VALUE_NOT_REPRESENTABLE)
    return render_raw(outcome).bind(
        lambda text: (
            encode(outcome).map(lambda data: Halves(text, data)).alt(lambda _: unrepresentable)
        )
    )


def raw_halves(outcome: RawOutcome) -> Halves:
    """Both halves of a raw outcome, or of the raw refusal that replaces both."""
    result = raw_outcome_halves(outcome)
    if is_successful(result):
        return result.unwrap()
    reason = result.failure()
    return Halves(raw_refusal_text(reason), _ENCODER.encode(reason))


_PATH: Final = re.compile(r" - at `(?P<path>[^`]*)`$")
_SAFE_PROBLEMS: Final = (
    re.compile(r"Expected `[a-z |]+`(, got `[a-z]+`)?"),
    re.compile(r"Expected `[a-z ]+` (of length )?[<>]=? ?\d+"),
    re.compile(r"Object missing required field `[a-z_]+`"),
)


def _codec_error(message: str) -> CodecError:
    """A ValidationError's message as a path and a problem; a problem that could echo a value
    (an unknown key, an enum value) is replaced by a fixed phrase."""
    found = _PATH.search(message)
    text = message[: found.start()] if found else message
    path = found.group("path") if found else "$"
    if any(pattern.fullmatch(text) for pattern in _SAFE_PROBLEMS):
        return CodecError(path=path, problem=text)
    if text.startswith("Object contains unknown field"):
        return CodecError(path=path, problem="an unknown field is present")
    return CodecError(path=path, problem="invalid value")


def _decode(decoder: msgspec.json.Decoder[T], data: bytes | str) -> Result[T, CodecError]:
    try:
        return Success(decoder.decode(data))
    except msgspec.ValidationError as err:
        return Failure(_codec_error(str(err)))
    except msgspec.DecodeError:
        return Failure(CodecError(path="$", problem="not valid JSON"))
    except UnicodeEncodeError:  # JSON handed over as a str holding a lone surrogate
        return Failure(CodecError(path="$", problem="a lone surrogate is not text"))


_OUTCOME_DECODER: Final = msgspec.json.Decoder(Outcome)
_STATEMENT_DECODER: Final = msgspec.json.Decoder(RawStatement)
_RAW_DECODER: Final = msgspec.json.Decoder(RawOutcome)
_CATALOG_DECODER: Final = msgspec.json.Decoder(CatalogBody, dec_hook=_dec_hook)
_CATALOG_REQUEST_DECODER: Final = msgspec.json.Decoder(CatalogRequest)
_VALUES_REQUEST_DECODER: Final = msgspec.json.Decoder(ValuesRequest)


def decode_outcome(data: bytes | str) -> Result[Outcome, CodecError]:
    """Decode a structured answer or refusal.

    >>> decode_outcome(b'{"outcome": "answer", "columns": [1]}').failure()
    CodecError(path='$.columns[0]', problem='Expected `str`, got `int`')
    """
    return _decode(_OUTCOME_DECODER, data)


def decode_raw_outcome(data: bytes | str) -> Result[RawOutcome, CodecError]:
    """Decode a structured raw outcome (rows or refusal)."""
    return _decode(_RAW_DECODER, data)


def decode_statement(data: bytes | str) -> Result[RawStatement, CodecError]:
    """Decode the raw tool's input, ``{"statement": "..."}`` (a path and a problem, no value).

    >>> decode_statement(b'{"statement": "SELECT 1", "limit": 5}').failure().problem
    'an unknown field is present'
    """
    return _decode(_STATEMENT_DECODER, data)


def convert_statement(arguments: object) -> Result[RawStatement, CodecError]:
    """The raw tool's input from already-decoded JSON (an MCP tool call's arguments).

    >>> convert_statement({"statement": 1}).failure()
    CodecError(path='$.statement', problem='Expected `str`, got `int`')
    """
    try:
        converted = msgspec.convert(arguments, RawStatement)
    except msgspec.ValidationError as err:
        return Failure(_codec_error(str(err)))
    if has_lone_surrogate(converted.statement):  # JSON decoders other than msgspec allow one
        return Failure(CodecError(path="$.statement", problem="a lone surrogate is not text"))
    return Success(converted)


def decode_catalog_arguments(data: bytes | str) -> Result[CatalogRequest, CodecError]:
    """Decode ``describe_catalog``'s input (an empty body is no arguments).

    >>> decode_catalog_arguments(b'{"page": 0}').failure().path
    '$.page'
    """
    if not data.strip():
        return Success(CatalogRequest())
    return _decode(_CATALOG_REQUEST_DECODER, data).bind(_searchable)


def convert_catalog_arguments(arguments: object) -> Result[CatalogRequest, CodecError]:
    """``describe_catalog``'s input from already-decoded JSON (MCP's arguments, HTTP's query).

    >>> convert_catalog_arguments({"search": "sales", "page": 2}).unwrap()
    CatalogRequest(search='sales', page=2)
    """
    try:
        converted = msgspec.convert(arguments, CatalogRequest)
    except msgspec.ValidationError as err:
        return Failure(_codec_error(str(err)))
    return _searchable(converted)


def _searchable(request: CatalogRequest) -> Result[CatalogRequest, CodecError]:
    if request.search is not None and has_lone_surrogate(request.search):
        return Failure(CodecError(path="$.search", problem="a lone surrogate is not text"))
    return Success(request)


def decode_values_arguments(data: bytes | str) -> Result[ValuesRequest, CodecError]:
    """Decode ``list_values``'s input (a path and a problem, never a value).

    >>> decode_values_arguments(b'{"metric": "m", "dimension": "d", "page_size": 0}').failure()
    CodecError(path='$.page_size', problem='Expected `int` >= 1')
    """
    return _decode(_VALUES_REQUEST_DECODER, data).bind(_values_text)


def convert_values_arguments(arguments: object) -> Result[ValuesRequest, CodecError]:
    """``list_values``'s input from already-decoded JSON (MCP's arguments, a CLI's flags).

    >>> convert_values_arguments({"metric": "m", "dimension": "d", "search": "x"}).unwrap().search
    'x'
    """
    try:
        converted = msgspec.convert(arguments, ValuesRequest)
    except msgspec.ValidationError as err:
        return Failure(_codec_error(str(err)))
    return _values_text(converted)


def _values_text(request: ValuesRequest) -> Result[ValuesRequest, CodecError]:
    """Every text of the request is text (JSON decoders other than msgspec pass a lone
    surrogate)."""
    for path, text in (
        ("$.metric", request.metric),
        ("$.dimension", request.dimension),
        ("$.search", request.search or ""),
    ):
        if has_lone_surrogate(text):
            return Failure(CodecError(path=path, problem="a lone surrogate is not text"))
    return Success(request)


def decode_catalog(data: bytes | str) -> Result[CatalogBody, CodecError]:
    """Decode a structured catalog; a description beside ``catalog_prose: omitted`` is refused."""
    return _decode(_CATALOG_DECODER, data).bind(_consistent)


def _descriptions(body: CatalogBody) -> Iterator[tuple[str, Description]]:
    for i, phrase in enumerate(body.not_defined):
        yield f"$.not_defined[{i}].description", phrase.description
    for i, term in enumerate(body.glossary):
        yield f"$.glossary[{i}].description", term.description
    for i, dimension in enumerate(body.dimensions):
        yield f"$.dimensions[{i}].description", dimension.description
    for i, metric in enumerate(body.metrics):
        yield f"$.metrics[{i}].description", metric.description
        for j, dimension in enumerate(metric.dimensions):
            yield f"$.metrics[{i}].dimensions[{j}].description", dimension.description
        for j, caveat in enumerate(metric.caveats):
            yield f"$.metrics[{i}].caveats[{j}].description", caveat.description
    for i, example in enumerate(body.examples):
        yield f"$.examples[{i}].description", example.description


def _consistent(body: CatalogBody) -> Result[CatalogBody, CodecError]:
    """Every description present is one the body's own setting would carry."""
    for path, description in _descriptions(body):
        text = prose_of(description)
        if text is not None and Carried.under(body.catalog_prose, text) != description:
            problem = "a description is present while catalog_prose omits prose"
            return Failure(CodecError(path=path, problem=problem))
    return Success(body)
