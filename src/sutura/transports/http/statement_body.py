"""The raw tool's request body, ``{"statement": "..."}``: decoded by the core's codec.

As for a question (:mod:`.body`), litestar's own decoding would answer a malformed body in its
own words, which can echo the value sent. This DTO hands the bytes to
:func:`~sutura.core.codec.decode_statement`, so a malformed body is ``400 not_a_statement``
naming the field, never the value, and the OpenAPI document still describes the body from the
:class:`~sutura.core.raw.check.RawStatement` Struct.
"""

from returns.result import Success

from sutura.core.codec import CodecError, decode_statement
from sutura.core.raw.request import RawStatement
from sutura.transports.http.core_body import CoreDecodedBody
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.wire import not_a_statement

EMPTY_BODY = CodecError(path="$", problem="the body is empty")


class StatementBody(CoreDecodedBody[RawStatement]):
    """Decode ``data: RawStatement`` with the core's decoder; describe it as the Struct."""

    body_type = RawStatement

    def decode_bytes(self, value: bytes) -> RawStatement:
        """The statement, or the ``not_a_statement`` failure naming the field."""
        decoded = decode_statement(value)
        if not isinstance(decoded, Success):
            raise HttpFailureError(not_a_statement(decoded.failure()))
        statement: RawStatement = decoded.unwrap()
        return statement
