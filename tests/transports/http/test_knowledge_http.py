"""Knowledge over HTTP: ``GET /v1/catalog`` carries every knowledge body byte for byte (the
whole prose corpus), leaves them all out under ``omitted``, and carries the operator's
instructions — the same body ``describe_catalog`` returns over MCP."""

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from sutura.core.text.escape import has_lone_surrogate
from tests.transports.http.deployments import assembled, client
from tests.transports.mcp.configs import carried_prose, hostile_config
from tests.transports.mcp.inprocess import connected, structured_of, wiring

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = hostile_config(tmp_path_factory.mktemp("hostile"))
    (config / "operator.md").write_text("Answer in French.\n\nBe brief.\n", encoding="utf-8")
    with (config / "base.yaml").open("a", encoding="utf-8") as handle:
        handle.write("prompt:\n  instructions_file: operator.md\n")
    return config


async def _catalog(config: Path, **environ: str) -> tuple[dict[str, Any], bytes]:
    async with assembled(config, **environ) as started, client(started.app) as http:
        with anyio.fail_after(20):
            response = await http.get("/v1/catalog")
    assert response.status_code == 200
    assert "\ufffd" not in response.content.decode("utf-8")
    body: dict[str, Any] = response.json()
    return body, response.content


def _bodies(body: dict[str, Any]) -> list[object]:
    parts = [*body["not_defined"], *body["glossary"], *body["examples"]]
    parts += body["metrics"][0]["caveats"]
    return [part.get("description") for part in parts]


async def test_the_catalog_body_carries_every_knowledge_body_byte_exact(hostile: Path) -> None:
    body, raw = await _catalog(hostile)
    prose = carried_prose()
    assert not has_lone_surrogate(prose)
    assert _bodies(body) == [prose] * 4
    assert json.loads(raw.decode("utf-8")) == body
    assert body["glossary"][0]["means"] == {"metric": "units"}
    assert body["examples"][0]["question"] == {
        "metrics": ["units"],
        "grain": "year",
        "range": {"start": "2024-01-01", "end": "2025-01-01"},
        "dimensions": ["label"],
    }
    assert body["operator_instructions"] == "Answer in French.\n\nBe brief."


async def test_under_omitted_no_knowledge_body_reaches_the_catalog_body(hostile: Path) -> None:
    body, raw = await _catalog(hostile, SUTURA__PROMPT__CATALOG_PROSE="omitted")
    assert _bodies(body) == [None] * 4
    assert b"description" not in raw
    assert [t["term"] for t in body["glossary"]] == ["units sold"]
    assert [p["phrase"] for p in body["not_defined"]] == ["margin"]


async def test_http_and_mcp_carry_the_same_structured_catalog(hostile: Path) -> None:
    body, _ = await _catalog(hostile)
    with anyio.fail_after(30):
        async with connected(wiring(hostile)) as mcp:
            result = await mcp.call_tool("describe_catalog", {})
    assert structured_of(result) == body
