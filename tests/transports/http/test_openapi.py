"""The OpenAPI document: snapshot-tested, and the app fuzzed against it with schemathesis.

The snapshot is rewritten only when ``SUTURA_UPDATE_SNAPSHOTS=1`` is set; otherwise any drift
fails, so a change of contract is a reviewed diff. The schemathesis run generates bounded
numbers of valid and invalid requests for every operation and checks each response: never a
5xx, a documented status, content type, headers, and a body that conforms to its schema.
"""

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from sutura.transports.http.serve import Started
from tests.transports.http.deployments import AUTH, assembled_in_portal, write_deployment

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "openapi.json"
UPDATE = os.environ.get("SUTURA_UPDATE_SNAPSHOTS") == "1"
EXAMPLES = 200
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


SCHEMATHESIS_HOST = "server:\n  allowed_hosts: [testserver]\n"
"""The ``Host`` schemathesis's ASGI client sends."""


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Started]:
    """The assembled app (a synchronous fixture: schemathesis drives it from its own loop)."""

    config = write_deployment(tmp_path, settings=SCHEMATHESIS_HOST)
    with assembled_in_portal(config) as value:
        yield value


def _document(started: Started) -> dict[str, Any]:
    schema: dict[str, Any] = started.app.openapi_schema.to_schema()
    document: dict[str, Any] = json.loads(json.dumps(schema))
    return document


def test_the_openapi_document_matches_its_snapshot(started: Started) -> None:
    text = json.dumps(_document(started), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if UPDATE:
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(text, encoding="utf-8")
    assert SNAPSHOT.exists(), "no snapshot; run with SUTURA_UPDATE_SNAPSHOTS=1 to create it"
    assert text == SNAPSHOT.read_text(encoding="utf-8"), (
        "the OpenAPI document drifted; review the change, then rerun with SUTURA_UPDATE_SNAPSHOTS=1"
    )


_QUESTION_PARTS = ("Question", "Range", "Last", "Top", "Compare", "Window")
_FILTERS = ("FilterEq", "FilterIn", "FilterNotIn")


def test_every_field_of_the_question_carries_a_description_a_model_can_act_on(
    started: Started,
) -> None:
    schemas = _document(started)["components"]["schemas"]
    for name in (*_QUESTION_PARTS, *_FILTERS):
        for field, body in schemas[name]["properties"].items():
            if name in _FILTERS and field == "op":  # the tag names the operator itself
                assert body["const"] in {"eq", "in", "not_in"}
                continue
            assert len(body.get("description", "").split()) >= 3, (name, field)
    period = schemas["Question"]["properties"]["range"]["oneOf"][0]["properties"]
    assert all(len(period[f]["description"].split()) >= 3 for f in ("start", "end"))
    defaults = schemas["Question"]["properties"]
    for field in ("dimensions", "filters", "top", "compare", "window", "fill"):
        assert "default" in defaults[field]["description"], field


def test_the_document_declares_bearer_security_and_every_failure_body(started: Started) -> None:
    document = _document(started)
    scheme = document["components"]["securitySchemes"]["bearer"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    query = document["paths"]["/v1/query"]["post"]
    assert query["security"] == [{"bearer": []}]
    assert query["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Question"
    }
    assert set(query["responses"]) == {
        "200", "400", "401", "403", "404", "408", "413", "415", "422", "500", "503"
    }  # fmt: skip
    assert "Retry-After" in query["responses"]["503"]["headers"]
    assert "security" not in document["paths"]["/health"]["get"]
    codes = document["components"]["schemas"]["FailureCode"]["enum"]
    assert {"unauthorized", "not_a_question", "too_large", "timeout", "internal"} <= set(codes)
    assert {"unavailable", "at_capacity", "tool_not_enabled"} <= set(codes)
    assert {"host_not_allowed", "unsupported_media_type"} <= set(codes)


def _void_on_the_wire(case: schemathesis.Case[Any]) -> bool:
    """A query made invalid by turning a value into a list of one item: sent, ``a=[x]`` is
    ``a=x``, a valid request that schemathesis would count as invalid data accepted."""
    components = case.meta.components if case.meta is not None else {}
    query = components.get(ParameterLocation.QUERY)
    mutated = query is not None and query.mode is schemathesis.GenerationMode.NEGATIVE
    values = (case.query or {}).values()
    return mutated and any(isinstance(value, list) and len(value) == 1 for value in values)


@pytest.mark.parametrize(
    ("mode", "checks"),
    [
        (schemathesis.GenerationMode.POSITIVE, CHECKS),
        (schemathesis.GenerationMode.NEGATIVE, [*CHECKS, negative_data_rejection]),
    ],
    ids=["positive", "negative"],
)
def test_every_response_to_generated_requests_conforms_to_the_document(
    started: Started, mode: schemathesis.GenerationMode, checks: list[Any]
) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", started.app)
    strategy = schema.as_strategy(generation_mode=mode)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy, authorised=st.sampled_from([True, True, True, False]))
    def run(case: schemathesis.Case[Any], authorised: bool) -> None:
        assume(not _void_on_the_wire(case))
        # A generated token is swapped for the real one; a header left out on purpose stays out.
        carries_token = "Authorization" in (case.headers or {})
        headers = AUTH if authorised and carries_token else {}
        case.call_and_validate(headers=headers, checks=checks)

    run()
