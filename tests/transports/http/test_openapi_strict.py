"""The OpenAPI document is as strict as the decoder: a body the schema admits is never
``not_a_question``, and a body the decoder calls malformed is outside the schema — so
generated clients and fuzzers agree with the server."""

from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest

from tests.transports.http.deployments import AUTH, QUESTION, assembled, client, write_deployment

pytestmark = pytest.mark.anyio

START_END = {"start": "2024-01-01", "end": "2025-01-01"}
LAST = {"last": {"count": 2, "unit": "year"}}
BODIES: list[tuple[str, dict[str, Any], bool]] = [
    ("the question", QUESTION, True),
    ("last", {**QUESTION, "range": LAST}, True),
    (
        "last, the other form null",
        {**QUESTION, "range": {**LAST, "start": None, "end": None}},
        True,
    ),
    ("start and end, last null", {**QUESTION, "range": {**START_END, "last": None}}, True),
    ("a metric twice", {**QUESTION, "metrics": ["units", "units"]}, False),
    ("both forms", {**QUESTION, "range": {**START_END, **LAST}}, False),
    ("neither form", {**QUESTION, "range": {}}, False),
    ("start alone", {**QUESTION, "range": {"start": "2024-01-01"}}, False),
    ("end alone with last", {**QUESTION, "range": {"end": "2024-01-01", **LAST}}, False),
    ("all null", {**QUESTION, "range": {"start": None, "end": None, "last": None}}, False),
    ("an unknown range key", {**QUESTION, "range": {**START_END, "step": 1}}, False),
]


async def test_the_schema_admits_exactly_what_the_decoder_accepts(tmp_path: Path) -> None:
    async with assembled(write_deployment(tmp_path)) as started, client(started.app) as http:
        document = started.app.openapi_schema.to_schema()
        schema = {"$ref": "#/components/schemas/Question", "components": document["components"]}
        validator = jsonschema.Draft202012Validator(schema)
        for case, body, valid in BODIES:
            with anyio.fail_after(10):
                response = await http.post("/v1/query", json=body, headers=AUTH)
            assert validator.is_valid(body) is valid, case
            malformed = response.status_code == 400 and response.json()["code"] == "not_a_question"
            assert malformed is not valid, (case, response.text)
