"""The one call: who may ask what, what it comes to, and one audit record per call."""

import hashlib
import json
import logging
from pathlib import Path

import anyio
import pytest

from sutura.boundary import service as service_module
from sutura.core.nouns.answer import Answer, Refused
from sutura.core.nouns.refusal import RefusalCode
from sutura.core.tool.caller import Caller
from sutura.core.tool.capability import Capability, Scope
from sutura.core.tool.reply import (
    FAILURE_SENTENCE,
    Answered,
    Declined,
    Failed,
    Malformed,
    NotOffered,
    NotPermitted,
)
from tests.services import call, serving

pytestmark = pytest.mark.anyio

YEAR = {"start": "2024-01-01", "end": "2025-01-01"}
REVENUE = {"metrics": ["revenue"], "grain": "year", "range": YEAR}


def _environ(example_dir: Path) -> dict[str, str]:
    return {"SUTURA_CONFIG_DIR": str(example_dir)}


def _records(caplog: pytest.LogCaptureFixture) -> list[dict[str, object]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == "sutura.audit"]


async def test_an_answer_carries_its_value_and_both_halves_built_from_it(
    example_dir: Path,
) -> None:
    async with serving(_environ(example_dir), anchors=False) as service:
        reply = await call(service, Capability.ASK_METRIC, REVENUE)
    assert isinstance(reply, Answered) and isinstance(reply.value, Answer)
    assert reply.halves.text.startswith("period\trevenue\n2024-01-01\t")
    assert json.loads(reply.halves.structured)["rows"] == reply.value.rows


async def test_a_refusal_is_declined_with_its_status_and_both_halves(example_dir: Path) -> None:
    async with serving(_environ(example_dir), anchors=False) as service:
        reply = await call(service, Capability.ASK_METRIC, {**REVENUE, "metrics": ["payroll"]})
    assert isinstance(reply, Declined) and isinstance(reply.value, Refused)
    assert (reply.code, reply.status, reply.retryable) == ("metric_unknown", 404, False)
    assert reply.halves.text.startswith("refused (metric_unknown): ")


@pytest.mark.parametrize(
    ("capability", "arguments", "field"),
    [
        (Capability.ASK_METRIC, {**REVENUE, "sql": "SELECT 1"}, "$.sql"),
        (Capability.ASK_METRIC, b"{not json", "$"),
        (Capability.ASK_METRIC, {**REVENUE, "metrics": ["revenue", "revenue"]}, "$.metrics"),
        (Capability.DESCRIBE_CATALOG, {"search": "x", "sql": "SELECT 1"}, "$"),
        (Capability.DESCRIBE_CATALOG, {"page": 0}, "$.page"),
        (Capability.DESCRIBE_CATALOG, {"search": 1}, "$.search"),
    ],
)
async def test_malformed_arguments_name_the_field_never_the_value(
    example_dir: Path, capability: Capability, arguments: object, field: str
) -> None:
    async with serving(_environ(example_dir), anchors=False) as service:
        reply = await call(service, capability, arguments)  # type: ignore[arg-type]
    assert isinstance(reply, Malformed) and reply.field == field
    assert "SELECT" not in reply.sentence()


async def test_a_caller_without_the_scope_is_not_permitted_and_told_which_scope(
    example_dir: Path,
) -> None:
    reader = Caller(
        subject="reader",
        scopes=frozenset({Scope.CATALOG_READ}),
        audiences=frozenset(),
        request_id="r",
    )
    async with serving(_environ(example_dir), anchors=False) as service:
        with anyio.fail_after(10):
            catalog = await service.call(Capability.DESCRIBE_CATALOG, None, reader, 5.0)
            refused = await service.call(Capability.ASK_METRIC, REVENUE, reader, 5.0)
    assert isinstance(catalog, Answered)
    assert refused == NotPermitted(capability=Capability.ASK_METRIC)
    assert "sutura:metrics.ask" in refused.sentence()


async def test_a_capability_the_deployment_does_not_offer_is_not_offered(
    example_dir: Path,
) -> None:
    async with serving(_environ(example_dir), anchors=False) as service:
        reply = await call(service, Capability.RUN_SQL, {"statement": "SELECT 1"})
    assert reply == NotOffered(capability=Capability.RUN_SQL)


async def test_the_callers_deadline_bounds_the_call(example_dir: Path) -> None:
    async with serving(_environ(example_dir), anchors=False) as service:
        reply = await call(service, Capability.ASK_METRIC, REVENUE, deadline=1e-6)
    assert isinstance(reply, Declined) and reply.code == RefusalCode.DEADLINE_EXCEEDED.value


async def test_something_broken_is_failed_with_the_fixed_sentence_and_the_cause_logged(
    example_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def explode(*_: object, **__: object) -> object:
        raise RuntimeError("canary: the disk caught fire")

    caplog.set_level(logging.ERROR, logger="sutura.service")
    async with serving(_environ(example_dir), anchors=False) as service:
        monkeypatch.setattr(service_module, "run_certified", explode)
        reply = await call(service, Capability.ASK_METRIC, REVENUE)
    assert reply == Failed(capability=Capability.ASK_METRIC)
    assert reply.sentence() == FAILURE_SENTENCE and "canary" not in FAILURE_SENTENCE
    assert "canary: the disk caught fire" in caplog.text


async def test_every_call_leaves_one_audit_record_naming_what_was_asked_never_a_value(
    example_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    filtered = {
        **REVENUE,
        "dimensions": ["channel"],
        "filters": [{"op": "eq", "dimension": "channel", "value": "web"}],
    }
    async with serving(_environ(example_dir), anchors=False) as service:
        await call(service, Capability.DESCRIBE_CATALOG, None)
        await call(service, Capability.ASK_METRIC, filtered)
        await call(service, Capability.ASK_METRIC, {**REVENUE, "metrics": ["payroll"]})
        await call(service, Capability.ASK_METRIC, {**REVENUE, "sql": "x"})
        await call(service, Capability.RUN_SQL, {"statement": "SELECT 1"})
    records = _records(caplog)
    outcomes = [(r["capability"], r["outcome"]) for r in records]
    assert outcomes == [
        ("describe_catalog", "answer"),
        ("ask_metric", "answer"),
        ("ask_metric", "metric_unknown"),
        ("ask_metric", "malformed"),
        ("run_sql", "not_offered"),
    ]
    assert records[1]["metrics"] == ["revenue"] and records[1]["rows"] == 1
    assert all(r["subject"] == "local:test" and r["request_id"] == "test" for r in records)
    assert all(r["definition_digest"] == service.pinned.digest for r in records)
    assert "web" not in caplog.text


async def test_a_call_whose_caller_stops_waiting_is_recorded_without_an_outcome(
    example_dir: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def hang(*_: object, **__: object) -> None:
        await anyio.sleep_forever()

    caplog.set_level(logging.INFO, logger="sutura.audit")
    async with serving(_environ(example_dir), anchors=False) as service:
        monkeypatch.setattr(service_module, "run_certified", hang)
        with anyio.move_on_after(0.1):
            await call(service, Capability.ASK_METRIC, REVENUE)
    (record,) = _records(caplog)
    assert record["outcome"] == "no_outcome"


async def test_a_statement_is_audited_by_its_digest_never_its_text(
    example_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    forged = "SELECT * FROM orders WHERE email = 'secret@example.org' --\n{\"outcome\": 1}\u202e"
    caplog.set_level(logging.INFO, logger="sutura.audit")
    enabled = {"SUTURA__TOOLS__RUN_SQL__ENABLED": "true", "SUTURA__TOOLS__RUN_SQL__SOURCE": "main"}
    async with serving({**_environ(example_dir), **enabled}, anchors=False) as service:
        await call(service, Capability.RUN_SQL, {"statement": forged})
    (line,) = [r.getMessage() for r in caplog.records if r.name == "sutura.audit"]
    assert "\n" not in line and "\u202e" not in line and "secret@" not in line
    record = json.loads(line)
    assert "statement" not in record
    assert record["statement_sha256"] == hashlib.sha256(forged.encode()).hexdigest()
