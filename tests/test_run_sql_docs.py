"""``docs/raw-sql.md`` stays true: every raw refusal code at its status, with its detail."""

from pathlib import Path

import pytest

from sutura.core.raw.outcome import DETAILS, RawRefusalCode, raw_status
from tests.raw_sql_bypass import CORPUS

DOC = Path(__file__).resolve().parents[1] / "docs" / "raw-sql.md"
TEXT = DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("code", list(RawRefusalCode), ids=str)
def test_every_raw_refusal_code_is_documented_with_its_status_and_detail(
    code: RawRefusalCode,
) -> None:
    assert f"| `{code.value}` | {raw_status(code)} | {DETAILS[code]} |" in TEXT


def test_the_documented_bypass_corpus_is_the_tested_one() -> None:
    assert "tests/raw_sql_bypass.py" in TEXT
    assert len(CORPUS) >= 30
