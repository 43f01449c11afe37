"""What a row's reply looks like on the wire, checked the same way on every surface."""

from collections.abc import Mapping
from typing import Any, assert_never

from sutura.core.nouns.refusal import DETAILS, RefusalCode
from sutura.core.raw.outcome import DETAILS as RAW_DETAILS
from sutura.core.raw.outcome import RawRefusalCode
from sutura.transports.http.wire import FAILURE_DETAILS
from tests.contract.seams import CANARY
from tests.contract.table import Body, Row
from tests.refusals import PROVOKED

_RAW_KEYS = {"outcome", "code", "detail", "database_text", "database_text_cut"}


def refusal_line(row: Row) -> str:
    """``refused (<code>): <detail>``, the refusal's line of the text half."""
    code = str(row.code)
    detail = (
        DETAILS[RefusalCode(code)]
        if row.http.body is Body.REFUSAL
        else RAW_DETAILS[RawRefusalCode(code)]
    )
    return f"refused ({row.code}): {detail}"


def check_text_half(row: Row, text: str) -> None:
    """The text half (MCP's text block, the command line's stdout) says what the row is."""
    match row.http.body:
        case Body.REFUSAL:
            assert text.rstrip("\n") == refusal_line(row)
        case Body.RAW_REFUSAL:
            assert refusal_line(row) in text.splitlines(), text
        case Body.ANSWER:
            assert text.startswith("period\tregion\tunits\n"), text
        case Body.RAW_ROWS | Body.CATALOG:
            assert text.strip()
        case Body.STATEMENT:
            assert text.startswith("-- dialect: ") and "\n\nparameters:\n  $1: " in text, text
        case Body.VALUES:
            assert text.startswith("channel\nphone\nstore\nweb\n\\. rows: 3\n"), text
            assert text.rstrip("\n").endswith("\nlast page"), text
        case Body.FAILURE:
            raise AssertionError(f"{row.name} has no text half")
        case _:
            assert_never(row.http.body)


def check_structured(row: Row, body: Mapping[str, Any]) -> None:
    """The structured half (the HTTP body of everything but a failure) has the row's shape."""
    match row.http.body:
        case Body.ANSWER:
            assert set(body) == {"outcome", "columns", "rows", "provenance"}, body
            assert body["outcome"] == "answer" and body["rows"], body
        case Body.CATALOG:
            assert {"provenance", "catalog_prose", "metrics"} <= set(body), set(body)
            assert "outcome" not in body
        case Body.RAW_ROWS:
            assert set(body) == {"outcome", "columns", "rows"}, body
            assert body["outcome"] == "raw_rows" and body["rows"], body
        case Body.STATEMENT:
            assert set(body) == {"dialect", "sql", "parameters", "plan", "columns"}, body
            assert body["columns"] == ["period", "region", "units"] and body["parameters"], body
        case Body.VALUES:
            assert set(body) == {"outcome", "metric", "dimension", "offset", "values", "provenance"}
            assert body["outcome"] == "values", body
            assert body["values"] == ["phone", "store", "web"], body
        case Body.REFUSAL:
            _check_refusal(row, body)
        case Body.RAW_REFUSAL:
            _check_raw_refusal(row, body)
        case Body.FAILURE:
            raise AssertionError(f"{row.name} has no structured half")
        case _:
            assert_never(row.http.body)


def _check_refusal(row: Row, body: Mapping[str, Any]) -> None:
    code = RefusalCode(str(row.code))
    reason = {"code": code.value, "status": row.status, "detail": DETAILS[code]}
    assert body == {"outcome": "refusal", "reason": reason}
    PROVOKED.add(code)


def _check_raw_refusal(row: Row, body: Mapping[str, Any]) -> None:
    code = RawRefusalCode(str(row.code))
    assert set(body) <= _RAW_KEYS and body["outcome"] == "raw_refusal", body
    assert (body["code"], body["detail"]) == (code.value, RAW_DETAILS[code]), body
    words = code is RawRefusalCode.STATEMENT_FAILED
    assert ("database_text" in body) is words, body


def check_failure(row: Row, body: Mapping[str, Any]) -> None:
    """An HTTP failure body: ``{code, status, detail}``, the detail fixed or the row's
    sentence (a malformed call, a missing scope), never anything the caller sent."""
    assert row.http.failure is not None
    assert set(body) == {"code", "status", "detail"}, body
    assert (body["code"], body["status"]) == (row.http.failure.value, row.status), body
    fixed = FAILURE_DETAILS[row.http.failure]
    assert body["detail"] == fixed or (
        row.sentence is not None and body["detail"].startswith(row.sentence)
    ), body


def check_nothing_leaked(*texts: str) -> None:
    """No cause of a failure, and no over-long statement, reaches a caller."""
    for text in texts:
        assert CANARY not in text
        assert "x" * 1000 not in text
