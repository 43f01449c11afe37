"""OpenTelemetry traces (``tracing.enabled``, the ``otel`` extra): a span per call with its
capability and outcome, one per stage inside it; read with the SDK's in-memory exporter."""

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sutura.boundary.tracing import otel_tracing
from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment

pytestmark = pytest.mark.anyio


async def test_each_call_is_a_span_with_a_child_per_stage_naming_capability_and_outcome(
    tmp_path: Path,
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    config = write_deployment(tmp_path)
    with anyio.fail_after(30):
        async with assembled(config) as started, client(started.app) as http:
            started.service.trace(otel_tracing(provider).unwrap())
            await http.post("/v1/query", json=QUESTION, headers=AUTH)
            await http.post("/v1/query", json={**QUESTION, "metrics": ["nope"]}, headers=AUTH)
    spans = exporter.get_finished_spans()
    calls = [s for s in spans if s.name == "sutura.call"]
    assert [dict(s.attributes or {}) for s in calls] == [
        {"sutura.capability": "ask_metric", "sutura.outcome": "answer"},
        {"sutura.capability": "ask_metric", "sutura.outcome": "metric_unknown"},
    ]
    answered = calls[0].context.span_id
    stages = [s for s in spans if s.parent is not None and s.parent.span_id == answered]
    assert [s.name for s in stages] == [
        "sutura.resolve", "sutura.compile", "sutura.run", "sutura.render",
    ]  # fmt: skip
    assert all((s.attributes or {})["sutura.capability"] == "ask_metric" for s in stages)
    assert not [s for s in spans if QUESTION["dimensions"][0] in str(s.attributes)]


async def test_tracing_enabled_through_the_settings_starts_and_traces(tmp_path: Path) -> None:
    config = write_deployment(tmp_path, settings="tracing:\n  enabled: true\n")
    with anyio.fail_after(30):
        async with assembled(config) as started, client(started.app) as http:
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 200


def test_without_tracing_nothing_of_the_otel_sdk_is_imported() -> None:
    probe = (
        "import sys\n"
        "from sutura.boundary import service, startup, tracing\n"
        "from sutura.boundary.observe import Observers\n"
        "Observers()\n"
        "assert not [m for m in sys.modules if m.startswith('opentelemetry.sdk')], 'sdk'\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
