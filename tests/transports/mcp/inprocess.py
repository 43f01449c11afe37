"""Driving the composed server in-process through the SDK's own ``Client``."""

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from sutura.root import Wiring
from sutura.transports.mcp.server import mcp_server

EXAMPLE_QUESTION: dict[str, Any] = {
    "metrics": ["revenue"],
    "grain": "quarter",
    "range": {"start": "2024-01-01", "end": "2025-01-01"},
    "dimensions": ["region"],
}


def wiring(config: Path, **environ: str) -> Wiring:
    """The composition root's wiring for a config dir, as ``sutura mcp`` builds it."""
    return Wiring({"SUTURA_CONFIG_DIR": str(config), **environ})


@asynccontextmanager
async def connected(starter: Wiring, mode: str = "legacy") -> AsyncIterator[Client]:
    """A client session with the server ``sutura mcp`` would serve for ``starter``."""
    composed = mcp_server(starter.load()).unwrap()
    async with Client(composed.server, mode=mode) as client:
        yield client


def text_of(result: types.CallToolResult) -> str:
    """The one text block of a result."""
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def structured_of(result: types.CallToolResult) -> Mapping[str, Any]:
    """The structured content of a result, which is always an object here."""
    content = result.structured_content
    assert isinstance(content, dict)
    return content
