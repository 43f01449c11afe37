"""The audit file (``audit.path``): every record of every call written and flushed by the time
the service has closed, however many calls were in flight; nothing after it closed."""

import json
import logging
from pathlib import Path
from typing import Any

import anyio
import pytest

from sutura import api
from sutura.core.tool.capability import Capability

pytestmark = pytest.mark.anyio

REVENUE = {
    "metrics": ["revenue"],
    "grain": "year",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
}
CALLS = 60


def _records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n")[:-1]]


async def test_every_record_of_concurrent_calls_is_in_the_file_once_the_service_has_closed(
    example_dir: Path, tmp_path: Path
) -> None:
    sink = tmp_path / "audit.jsonl"
    environ = {"SUTURA__AUDIT__PATH": str(sink)}
    with anyio.fail_after(60):
        async with api.opened(example_dir, environ=environ, anchors=False) as started:
            service = started.unwrap()
            async with anyio.create_task_group() as calls:
                for n in range(CALLS):
                    capability = Capability.ASK_METRIC if n % 2 else Capability.DESCRIBE_CATALOG
                    arguments = REVENUE if n % 2 else {}
                    calls.start_soon(api.call, service, capability, arguments)
    records = _records(sink)
    assert len(records) == CALLS and len({r["request_id"] for r in records}) == CALLS
    assert sorted(r["capability"] for r in records) == sorted(
        ["ask_metric", "describe_catalog"] * (CALLS // 2)
    )
    assert all(r["outcome"] == "answer" and r["time"].endswith("+00:00") for r in records)
    assert [r["time"] for r in records] == sorted(r["time"] for r in records)


async def test_a_record_logged_after_the_service_closed_is_not_written(
    example_dir: Path, tmp_path: Path
) -> None:
    sink = tmp_path / "audit.jsonl"
    environ = {"SUTURA__AUDIT__PATH": str(sink)}
    with anyio.fail_after(60):
        async with api.opened(example_dir, environ=environ, anchors=False) as started:
            await api.call(started.unwrap(), Capability.DESCRIBE_CATALOG, {})
    logging.getLogger("sutura.audit").info("%s", '{"request_id":"late"}')
    assert [r["capability"] for r in _records(sink)] == ["describe_catalog"]


async def test_records_are_appended_to_what_the_file_already_holds(
    example_dir: Path, tmp_path: Path
) -> None:
    sink = tmp_path / "audit.jsonl"
    sink.write_text('{"time":"earlier","request_id":"kept"}\n', encoding="utf-8")
    environ = {"SUTURA__AUDIT__PATH": str(sink)}
    with anyio.fail_after(60):
        for _ in range(2):
            async with api.opened(example_dir, environ=environ, anchors=False) as started:
                await api.call(started.unwrap(), Capability.DESCRIBE_CATALOG, {})
    records = _records(sink)
    assert [r["request_id"] == "kept" for r in records] == [True, False, False]
