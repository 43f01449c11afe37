"""Driving ``/mcp`` of an assembled ``sutura serve`` app in-process, with the SDK's own
streamable-HTTP client (over httpx2's ASGI transport, so no socket is needed)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from litestar import Litestar
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

BASE = "http://localhost"
"""A loopback name: the default ``server.allowed_hosts`` admits it."""


@asynccontextmanager
async def http_of(app: Litestar, headers: dict[str, str]) -> AsyncIterator[httpx2.AsyncClient]:
    """An httpx2 client of ``app`` in-process, sending ``headers`` on every request."""
    asgi: Any = app  # litestar types its scope narrower than httpx2 declares
    transport = httpx2.ASGITransport(app=asgi)
    async with httpx2.AsyncClient(transport=transport, base_url=BASE, headers=headers) as http:
        yield http


@asynccontextmanager
async def mcp_client(http: httpx2.AsyncClient, mode: str = "legacy") -> AsyncIterator[Client]:
    """The SDK's client of ``/mcp`` over ``http``."""
    async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode=mode) as c:
        yield c


LIST_TOOLS: dict[str, object] = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
JSON_RPC_HEADERS = {"Accept": "application/json, text/event-stream"}
LEGACY = {**JSON_RPC_HEADERS, "MCP-Protocol-Version": "2025-11-25"}
