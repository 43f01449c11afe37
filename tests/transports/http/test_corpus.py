"""The injection corpus walked over HTTP: every hostile cell is one opaque JSON string.

The structured half needs no escaping (the encoder owns the field boundary); what it must
guarantee is a byte-exact round trip of each value, and a typed refusal, never a replacement
character, for a value strict UTF-8 JSON cannot carry.
"""

import json
from pathlib import Path

import anyio
import pytest

from sutura.core.nouns.refusal import RefusalCode
from sutura.core.text.escape import has_lone_surrogate
from sutura.core.text.untrusted import CELLS, Case
from tests.refusals import expect_refusal
from tests.transports.http.deployments import (
    AUTH,
    QUESTION,
    DoubleSource,
    app_over,
    assembled,
    carried_cells,
    client,
    refusal_of,
    write_deployment,
)

pytestmark = pytest.mark.anyio

UNCARRIABLE = [case for case in CELLS if has_lone_surrogate(case.value)]


async def test_every_corpus_cell_comes_back_byte_exact_as_one_json_string(
    tmp_path: Path,
) -> None:
    async with assembled(write_deployment(tmp_path)) as started, client(started.app) as http:
        with anyio.fail_after(20):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 200
    text = response.content.decode("utf-8")  # strict: the body is valid UTF-8
    assert "\ufffd" not in text
    rows = json.loads(text)["rows"]
    assert all(len(row) == 3 and isinstance(row[1], str) for row in rows)
    labels = [row[1] for row in rows]
    assert sorted(labels) == sorted(set(carried_cells()))
    assert {label.encode("utf-8") for label in labels} == {
        cell.encode("utf-8") for cell in carried_cells()
    }


@pytest.mark.parametrize("case", UNCARRIABLE, ids=lambda case: case.name)
async def test_a_cell_strict_utf8_cannot_carry_is_refused_whole(tmp_path: Path, case: Case) -> None:
    async def hostile(_statement: str) -> list[list[object]]:
        return [["2024-01-01", "fine", "1"], ["2024-01-01", case.value, "2"]]

    app = app_over(write_deployment(tmp_path), DoubleSource(hostile))
    async with client(app) as http:
        with anyio.fail_after(10):
            response = await http.post("/v1/query", json=QUESTION, headers=AUTH)
    assert response.status_code == 422
    text = response.content.decode("utf-8")
    assert "\ufffd" not in text
    assert "fine" not in text  # no partial answer beside the refusal
    expect_refusal(refusal_of(response), RefusalCode.VALUE_NOT_REPRESENTABLE)
