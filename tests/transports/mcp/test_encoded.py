"""The structured half written as msgspec's bytes: escaped as each SDK encoder escapes, kept
per request, and never sent as its stand-in."""

import contextvars
import json
from typing import Any

import msgspec
import pydantic_core
import pytest

from sutura.transports.mcp.encoded import (
    KEY,
    Kept,
    as_ascii_json,
    keep_per_task,
    kept_for_request,
    spliced_send,
    stand_in,
)

pytestmark = pytest.mark.anyio

EVERY_CHARACTER = "".join(chr(p) for p in range(0x110000) if not 0xD800 <= p <= 0xDFFF)
"""Every code point a structured half can hold (a lone surrogate is refused before)."""


def test_msgspec_escapes_every_character_as_the_sdks_pydantic_encoder_does() -> None:
    assert msgspec.json.encode(EVERY_CHARACTER) == pydantic_core.to_json(EVERY_CHARACTER)


def test_the_ascii_form_escapes_every_character_as_json_dumps_does() -> None:
    written = as_ascii_json(msgspec.json.encode({"cell": EVERY_CHARACTER}))
    assert written == json.dumps({"cell": EVERY_CHARACTER}, separators=(",", ":")).encode()


def test_without_a_sutura_transport_the_result_carries_the_structured_half_itself() -> None:
    assert contextvars.copy_context().run(stand_in, b'{"outcome":"answer"}') is None


def test_over_stdio_each_task_keeps_its_own_halves() -> None:
    def call() -> tuple[dict[str, str] | None, dict[str, str] | None]:
        keep_per_task()
        return stand_in(b"{}"), stand_in(b"[]")

    first, second = contextvars.copy_context().run(call)
    assert first is not None and second is not None
    assert list(first) == [KEY] and first != second


def test_a_stand_in_the_sdk_did_not_write_is_never_sent_as_the_answer() -> None:
    kept = Kept()
    kept.keep(b'{"outcome":"answer"}')
    with pytest.raises(RuntimeError, match="stand-in"):
        kept.splice(b'{"result":{"structuredContent":{}}}', ascii_only=False)


async def test_a_spliced_body_is_sent_with_its_own_length() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "headers": [(b"mcp-protocol-version", b"2025-11-25")]}
    with kept_for_request() as kept:
        body = b'{"structuredContent":' + msgspec.json.encode(kept.keep(b'{"a":"\xc3\xa9"}'))
        body += b"}"
        spliced = spliced_send(scope, send, kept)
        start = {"type": "http.response.start", "status": 200, "headers": []}
        await spliced({**start, "headers": [(b"content-length", str(len(body)).encode())]})
        await spliced({"type": "http.response.body", "body": body})
    assert sent[1]["body"] == '{"structuredContent":{"a":"é"}}'.encode()
    assert dict(sent[0]["headers"])[b"content-length"] == str(len(sent[1]["body"])).encode()
