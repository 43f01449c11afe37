"""The table itself: a row for every refusal code and every kind of reply, and the same table
in ``docs/refusals.md`` (rewritten from this one with ``SUTURA_UPDATE_SNAPSHOTS=1``)."""

import os
from pathlib import Path
from typing import Final

from sutura.core.nouns.refusal import RefusalCode, status_of
from sutura.core.raw.outcome import RawRefusalCode, raw_status
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Answered, Failed, Malformed, NotOffered, NotPermitted
from tests.contract.rows import ROWS
from tests.contract.table import Body, Surface, markdown

DOC: Final = Path(__file__).resolve().parents[2] / "docs" / "refusals.md"
BEGIN: Final = (
    "<!-- contract table: tests/contract/rows.py (SUTURA_UPDATE_SNAPSHOTS=1 rewrites it) -->"
)
END: Final = "<!-- end of contract table -->"
UPDATE: Final = os.environ.get("SUTURA_UPDATE_SNAPSHOTS") == "1"


def test_every_refusal_code_has_exactly_one_row_at_its_status() -> None:
    rows = [row for row in ROWS if row.http.body is Body.REFUSAL]
    assert sorted(str(row.code) for row in rows) == sorted(code.value for code in RefusalCode)
    assert all(row.status == status_of(RefusalCode(str(row.code))) for row in rows)


def test_every_raw_refusal_code_has_exactly_one_row_at_its_status() -> None:
    rows = [row for row in ROWS if row.http.body is Body.RAW_REFUSAL]
    assert sorted(str(row.code) for row in rows) == sorted(c.value for c in RawRefusalCode)
    assert all(row.status == raw_status(RawRefusalCode(str(row.code))) for row in rows)


def test_every_capability_has_an_answer_row_and_a_malformed_row() -> None:
    for kind in (Answered, Malformed):
        assert sorted(row.capability for row in ROWS if row.reply is kind) == sorted(Capability)


def test_not_offered_not_permitted_and_failed_each_have_a_row() -> None:
    for kind in (NotOffered, NotPermitted, Failed):
        assert [row.reply for row in ROWS if row.reply is kind] == [kind]


def test_only_the_replies_no_surface_can_send_are_mapped() -> None:
    # Everything else is sent for real over every surface; MCP can send every row.
    unsendable = {row.name: row.unsendable for row in ROWS if row.unsendable}
    assert unsendable == {
        "ask_metric:not_permitted": {Surface.HTTP, Surface.CLI, Surface.API},
    }


def test_every_row_names_how_it_is_provoked_and_a_seam_says_so() -> None:
    for row in ROWS:
        assert row.provoked
        assert ("seam" in row.provoked) is row.seamed, row.name
        assert not (row.seamed and row.spawned), row.name


def _doc_table(text: str) -> list[str]:
    assert BEGIN in text and END in text, f"{DOC.name} has no contract table between markers"
    block = text.split(BEGIN, 1)[1].split(END, 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_the_docs_show_the_table_the_tests_use() -> None:
    text = DOC.read_text(encoding="utf-8")
    expected = markdown(ROWS)
    if UPDATE and _doc_table(text) != expected:
        before, rest = text.split(BEGIN, 1)
        after = rest.split(END, 1)[1]
        block = "\n".join(["", *expected, ""])
        DOC.write_text(f"{before}{BEGIN}\n{block}\n{END}{after}", encoding="utf-8")
        text = DOC.read_text(encoding="utf-8")
    assert _doc_table(text) == expected, (
        "docs/refusals.md and tests/contract/table.py disagree; review the change, then rerun "
        "with SUTURA_UPDATE_SNAPSHOTS=1 to rewrite the doc's table"
    )
