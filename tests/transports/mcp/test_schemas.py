"""The tools' schemas: generated, closed on input, pinned byte for byte, and compact.

The snapshot is rewritten only when ``SUTURA_UPDATE_SNAPSHOTS=1`` is set; otherwise any drift,
of an input or an output schema, fails here.
"""

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import mcp_types as types
import msgspec
import pytest

from sutura.core.catalog.view.catalog import CatalogView
from sutura.core.nouns.answer import Refused
from sutura.core.nouns.prose import CatalogProse
from sutura.core.nouns.question import (
    FilterBetween,
    FilterEq,
    FilterGe,
    FilterIn,
    FilterIsNull,
    FilterLt,
    FilterNotIn,
    Last,
    Question,
    Range,
    Top,
)
from sutura.core.nouns.refusal import RefusalCode, refusal
from sutura.core.nouns.values import Cut, Values
from sutura.core.raw.outcome import RawRefusalCode, RawRows, raw_failure, raw_refusal
from sutura.core.tool.capability import Capability, listed_to_agents, offered_by
from sutura.core.tool.codec import catalog_halves, halves_of, raw_halves, values_halves
from sutura.transports.mcp.tools import tool_of, tools_for
from tests.core.untrusted_samples import answer, pinned

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "tool_schemas.txt"
UPDATE = os.environ.get("SUTURA_UPDATE_SNAPSHOTS") == "1"
TOOLS = tools_for(frozenset(Capability))
"""Every tool, ``run_sql`` and ``compile_question`` included: all of them are pinned and checked."""
DEFAULT_TOOLS = tools_for(listed_to_agents(offered_by(False), compile_question_enabled=False))
WITH_RUN_SQL = tools_for(listed_to_agents(offered_by(True), compile_question_enabled=False))
QUESTION_INPUT = tool_of(Capability.ASK_METRIC).input_schema
# What every tools/list costs an agent's context: at most 8 KiB by default, 9 KiB with
# run_sql, 13.5 KiB with compile_question too (its input is a question, like ask_metric's).
# Each grew by 512 bytes for the range and NULL filters and by 1.5 KiB for list_values
# (1,418 bytes: docs/mcp.md).
TOOLS_LIST_BUDGET = 8192
ENABLED_TOOLS_LIST_BUDGET = 9216
EVERY_TOOL_LIST_BUDGET = 13824


def _schemas_text() -> str:
    lines: list[str] = []
    for tool in TOOLS:
        for kind, schema in (("input", tool.input_schema), ("output", tool.output_schema)):
            lines += [f"{tool.name} {kind}", msgspec.json.encode(schema).decode()]
    return "\n".join(lines) + "\n"


def test_the_input_and_output_schemas_match_their_snapshot_byte_for_byte() -> None:
    current = _schemas_text()
    if UPDATE:
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_bytes(current.encode("utf-8"))
    assert SNAPSHOT.read_bytes() == current.encode("utf-8"), (
        "tool schemas drifted; review the change, then rerun with SUTURA_UPDATE_SNAPSHOTS=1"
    )


def _wire_size(tools: tuple[types.Tool, ...]) -> int:
    wire = types.ListToolsResult(tools=list(tools)).model_dump_json(
        by_alias=True, exclude_none=True
    )
    return len(wire.encode("utf-8"))


def test_the_tool_list_is_at_most_8_kib_as_sent() -> None:
    assert _wire_size(DEFAULT_TOOLS) <= TOOLS_LIST_BUDGET


def test_the_tool_list_with_run_sql_is_at_most_9_kib_as_sent() -> None:
    assert _wire_size(WITH_RUN_SQL) <= ENABLED_TOOLS_LIST_BUDGET


def test_the_tool_list_with_every_tool_is_at_most_13_5_kib_as_sent() -> None:
    assert _wire_size(TOOLS) <= EVERY_TOOL_LIST_BUDGET


def _fields(schema: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every field below ``schema``, by its path, through union branches and ``$defs``."""
    if not isinstance(schema, dict):
        return
    for name, field in schema.get("properties", {}).items():
        yield f"{path}.{name}", field
        yield from _fields(field, f"{path}.{name}")
    for branch in schema.get("anyOf", []):
        yield from _fields(branch, path)
    yield from _fields(schema.get("items"), f"{path}[]")


def test_every_field_of_the_question_schema_says_what_it_means_as_openapi_does() -> None:
    openapi = msgspec.json.schema(Question)["$defs"]
    described = {
        path: field for path, field in _fields(QUESTION_INPUT, "$") if not path.endswith(".op")
    }
    assert len(described) == 27
    for path, field in described.items():
        defined = QUESTION_INPUT["$defs"].get(field.get("$ref", "").rsplit("/", 1)[-1], {})
        description = field.get("description") or defined.get("description")
        assert description, path
        assert description.endswith(".") and len(description) <= 120, path
    # The same sentence an OpenAPI reader gets, where OpenAPI has one.
    assert (
        described["$.fill"]["description"]
        == openapi["Question"]["properties"]["fill"]["description"]
    )
    # op, the filters' tag, is described by its field: which op takes value, which values.
    assert "op eq, lt, le, gt, ge: value" in described["$.filters"]["description"]


def _objects(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield node
        for key, value in node.items():
            children = value.values() if key in ("properties", "$defs") else [value]
            for child in children:
                yield from _objects(child)
    elif isinstance(node, list):
        for item in node:
            yield from _objects(item)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_object_of_an_input_schema_refuses_extra_keys(tool: types.Tool) -> None:
    objects = list(_objects(tool.input_schema))
    assert objects and all(obj.get("additionalProperties") is False for obj in objects)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_every_schema_is_valid_json_schema_with_an_object_root(tool: types.Tool) -> None:
    for schema in (tool.input_schema, tool.output_schema):
        assert schema is not None and schema["type"] == "object"
        jsonschema.Draft202012Validator.check_schema(schema)


def test_the_tools_are_read_only_and_closed_world() -> None:
    # destructiveHint and idempotentHint mean something only when readOnlyHint is false.
    for tool in TOOLS:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False
        assert tool.annotations.destructive_hint is not True


def _field_names(kind: type[msgspec.Struct]) -> list[str]:
    return [f.encode_name for f in msgspec.structs.fields(kind)]


def test_the_question_schema_is_the_question_type_field_for_field() -> None:
    properties = QUESTION_INPUT["properties"]
    assert list(properties) == _field_names(Question)
    assert list(properties["range"]["properties"]) == _field_names(Range)
    assert list(properties["range"]["properties"]["last"]["properties"]) == _field_names(Last)
    assert list(properties["top"]["properties"]) == _field_names(Top)
    filters = properties["filters"]["items"]["anyOf"]
    # filters that take the same fields are one branch, its op any of their tags
    assert _field_names(FilterIn) == _field_names(FilterNotIn)
    assert _field_names(FilterEq) == _field_names(FilterLt) == _field_names(FilterGe)
    kinds = (FilterEq, FilterIn, FilterBetween, FilterIsNull)
    expected = [["op", *_field_names(k)] for k in kinds]
    assert [list(f["properties"]) for f in filters] == expected
    assert [f["properties"]["op"]["enum"] for f in filters] == [
        ["eq", "lt", "le", "gt", "ge"],
        ["in", "not_in"],
        ["between"],
        ["is_null", "is_not_null"],
    ]


QUESTIONS_THE_DECODER_TAKES = [
    {"metrics": ["m"], "grain": "day", "range": {"start": "2024-01-01", "end": "2024-02-01"}},
    {
        "metrics": ["m", "n"],
        "grain": "month",
        "range": {"last": {"count": 3, "unit": "month", "include_current": True}},
        "dimensions": ["region"],
        "filters": [
            {"op": "eq", "dimension": "region", "value": "EU"},
            {"op": "not_in", "dimension": "channel", "values": ["web"]},
        ],
        "top": {"n": 3, "by": "m", "direction": "asc"},
    },
]


@pytest.mark.parametrize("question", QUESTIONS_THE_DECODER_TAKES)
def test_the_input_schema_accepts_the_questions_the_decoder_takes(
    question: dict[str, Any],
) -> None:
    msgspec.convert(question, Question)
    jsonschema.validate(question, QUESTION_INPUT, cls=jsonschema.Draft202012Validator)
    for extra in ({"sql": "SELECT 1"}, {"range": {**question["range"], "table": "t"}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**question, **extra}, QUESTION_INPUT)


def _structured_halves() -> Iterator[tuple[str, bytes]]:
    yield (
        "ask_metric",
        halves_of(answer(["period", "revenue"], [["2024", "1"], ["", None]])).structured,
    )
    for code in RefusalCode:
        yield "ask_metric", halves_of(Refused(reason=refusal(code))).structured
    for prose in CatalogProse:
        view = CatalogView.of(pinned(), prose)
        yield "describe_catalog", catalog_halves(view).unwrap().structured
    yield "run_sql", raw_halves(RawRows(columns=["a", "b"], rows=[["1", None]])).structured
    yield "run_sql", raw_halves(raw_failure("syntax error\nLINE 1: x" + "y" * 3000)).structured
    for raw_code in RawRefusalCode:
        yield "run_sql", raw_halves(raw_refusal(raw_code)).structured
    provenance = answer(["m"], []).provenance
    for page in (
        Values(metric="m", dimension="d", offset=0, values=["a\nb", None], provenance=provenance),
        Values(
            metric="m",
            dimension="d",
            offset=2,
            values=[],
            provenance=provenance,
            next_offset=2,
            cut=Cut.REPLY_BYTES,
        ),
    ):
        yield "list_values", values_halves(page).unwrap().structured
    for code in (RefusalCode.METRIC_UNKNOWN, RefusalCode.VALUE_TOO_LONG):
        yield "list_values", halves_of(Refused(reason=refusal(code))).structured


@pytest.mark.parametrize(("name", "structured"), list(_structured_halves()))
def test_every_structured_half_validates_against_its_tools_output_schema(
    name: str, structured: bytes
) -> None:
    (tool,) = [t for t in TOOLS if t.name == name]
    assert tool.output_schema is not None
    jsonschema.validate(msgspec.json.decode(structured), tool.output_schema)
