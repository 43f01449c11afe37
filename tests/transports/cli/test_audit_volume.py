"""A server limits repeated complaints in its log, never its audit records: one per call."""

import logging

import pytest

from sutura.transports.cli.main import _configure_logging


def test_a_server_logs_every_audit_record_and_limits_a_repeated_complaint(
    caplog: pytest.LogCaptureFixture,
) -> None:
    _configure_logging(verbose=False, serves=True)
    caplog.set_level(logging.INFO, logger="sutura.audit")
    for n in range(20):
        logging.getLogger("sutura.audit").info("%s", f'{{"request_id": "{n}"}}')
        logging.getLogger("sutura.source").error("the source is gone: %s", n)
    audit = [r for r in caplog.records if r.name == "sutura.audit"]
    complaints = [r for r in caplog.records if r.name == "sutura.source"]
    assert len(audit) == 20
    assert len(complaints) < 20
