"""The audit record of run_sql: one per call, on the operator's log, escaped, never returned."""

import hashlib
import logging

import anyio
import pytest

from sutura.boundary.raw_sql.audit import STATEMENT_SHOWN, run_audited
from sutura.core.raw.outcome import RawOutcome, RawRefusalCode, RawRows, raw_refusal

pytestmark = pytest.mark.anyio


class _Runner:
    """A runner that answers what the test says, or never answers."""

    alias = "main"

    def __init__(self, outcome: RawOutcome | None) -> None:
        self._outcome = outcome

    async def run(self, statement: str, *, deadline_seconds: float, max_rows: int) -> RawOutcome:
        if self._outcome is None:
            await anyio.sleep_forever()
        assert self._outcome is not None
        return self._outcome

    async def close(self) -> None:
        """Nothing to release."""


async def _audited(runner: _Runner, statement: str) -> RawOutcome:
    with anyio.fail_after(5):
        return await run_audited(runner, statement, deadline_seconds=1.0, max_rows=10)


def _records(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "sutura.audit"]


async def test_every_call_leaves_one_record_with_the_outcome_the_duration_and_the_statement(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    rows = RawRows(columns=["a"], rows=[["1"], ["2"]])
    assert await _audited(_Runner(rows), "SELECT a FROM t") == rows
    await _audited(_Runner(raw_refusal(RawRefusalCode.NOT_READ_ONLY)), "DROP TABLE t")
    first, second = _records(caplog)
    digest = hashlib.sha256(b"SELECT a FROM t").hexdigest()
    assert first.startswith("run_sql source=main outcome=raw_rows n=2 duration_ms=")
    assert first.endswith(f" statement_sha256={digest} statement=SELECT a FROM t")
    assert "outcome=not_read_only " in second and second.endswith("statement=DROP TABLE t")


async def test_a_statement_cannot_write_a_second_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    forged = "SELECT 1 --\nrun_sql source=main outcome=raw_rows n=0 statement=\u202eSELECT 2"
    await _audited(_Runner(RawRows(columns=["x"], rows=[])), forged)
    (record,) = _records(caplog)
    assert "\n" not in record and "\u202e" not in record
    assert record.endswith("statement=SELECT 1 --\\nrun_sql source=main outcome=raw_rows n=0 "
                           "statement=\\u202eSELECT 2")  # fmt: skip


async def test_a_long_statement_is_cut_visibly_in_the_record(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    await _audited(_Runner(RawRows(columns=["x"], rows=[])), "S" * (STATEMENT_SHOWN + 25))
    (record,) = _records(caplog)
    assert record.endswith("S…[+25 chars]")


async def test_a_call_that_never_answers_is_recorded_too(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="sutura.audit")
    with anyio.move_on_after(0.05):
        await run_audited(_Runner(None), "SELECT 1", deadline_seconds=1.0, max_rows=10)
    (record,) = _records(caplog)
    assert "outcome=no_outcome " in record
