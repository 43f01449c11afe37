r"""A line on stdin that the SDK cannot read is answered, never dropped without a word.

The SDK's stdio transport hands the server an exception for a line it cannot validate, and the
server answers nothing: a host whose request was on that line would wait for an answer that
never comes. So each line is first read with the SDK's own validator (the same verdict, so a
line it takes is handed on untouched); a line it refuses is answered here with a JSON-RPC 2.0
error, under the request's id where the id can still be read, else ``id: null``:

- not JSON, or not UTF-8: ``-32700`` (parse error);
- JSON that escapes a lone surrogate (``"\ud800"``): JSON to some parsers, but no strict UTF-8
  text can hold it, so no tool could be asked it: ``-32700``, under the request's id;
- JSON but not a JSON-RPC 2.0 message: ``-32600`` (invalid request), under its id if it has one.

The message never echoes the line.

>>> read_line(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}').method
'ping'
>>> line = b'{"jsonrpc": "2.0", "id": 7, "method": "x", "params": {"a": "\\ud800"}}'
>>> refused = read_line(line).refused
>>> refused.id, refused.error.code, refused.error.message == LONE_SURROGATE
(7, -32700, True)
>>> refused = read_line(b'not json').refused
>>> refused.id, refused.error.code
(None, -32700)
>>> read_line(b'{"id": "a"}').refused.error.code
-32600
"""

import json
from dataclasses import dataclass
from typing import Final

import mcp_types as types
import pydantic

NOT_JSON: Final = "the line is not JSON (one UTF-8 JSON-RPC 2.0 message per line)"
LONE_SURROGATE: Final = (
    "the line escapes a lone surrogate (\\uD800-\\uDFFF without its pair), which is not text"
)
NOT_JSON_RPC: Final = "the line is JSON but not a JSON-RPC 2.0 message"


@dataclass(frozen=True, slots=True)
class Refused:
    """A line the SDK cannot read, and the error that answers it."""

    refused: types.JSONRPCError


def read_line(line: bytes) -> types.JSONRPCMessage | Refused | None:
    """The message the SDK reads from ``line`` (by its own validator, so the very message it
    would see), the error that answers a line it cannot read, or ``None`` for a blank line
    (no message, left to the SDK to pass over)."""
    if not line.strip():
        return None
    try:
        message: types.JSONRPCMessage = types.jsonrpc_message_adapter.validate_json(
            line, by_name=False
        )
    except pydantic.ValidationError as error:
        return Refused(_answer(line, _json_failed(error)))
    return message


def _json_failed(error: pydantic.ValidationError) -> bool:
    """Whether the line failed as JSON (rather than as a JSON-RPC message)."""
    return any(detail["type"] == "json_invalid" for detail in error.errors())


def _answer(line: bytes, json_failed: bool) -> types.JSONRPCError:
    try:
        parsed = json.loads(line)  # Python's parser takes a lone surrogate's escape
    except ValueError:  # not JSON, not UTF-8 (UnicodeDecodeError is a ValueError)
        return _error(None, types.PARSE_ERROR, NOT_JSON)
    request_id = _id_of(parsed)
    if not json_failed:
        return _error(request_id, types.INVALID_REQUEST, NOT_JSON_RPC)
    problem = LONE_SURROGATE if _holds_surrogate(parsed) else NOT_JSON
    return _error(request_id, types.PARSE_ERROR, problem)


def _id_of(parsed: object) -> str | int | None:
    """The id a JSON-RPC request names, when it is one a response can carry."""
    if not isinstance(parsed, dict):
        return None
    found = parsed.get("id")
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    return None if _holds_surrogate(found) else found


def _holds_surrogate(parsed: object) -> bool:
    """Whether a text anywhere in ``parsed`` (a key too) holds a surrogate code point."""
    if isinstance(parsed, str):
        return any("\ud800" <= ch <= "\udfff" for ch in parsed)
    if isinstance(parsed, dict):
        return any(_holds_surrogate(k) or _holds_surrogate(v) for k, v in parsed.items())
    if isinstance(parsed, list):
        return any(_holds_surrogate(item) for item in parsed)
    return False


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    error = types.ErrorData(code=code, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)
