"""Throwaway stdio MCP server used to prove the external client works.

One tool, ``describe``, whose input has a nested object (``target``) and an array
(``columns``); it answers with a text block plus structured content that matches
its outputSchema (unless DEMO_BREAK_OUTPUT=1 is in its environment, which drops a
required field so a test can watch the client reject it). Run: ``python demo_server.py``.
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server

INSTRUCTIONS = "Demo server: call 'describe' with a target {schema, table} and optional columns."

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "target": {
            "type": "object",
            "properties": {"schema": {"type": "string"}, "table": {"type": "string"}},
            "required": ["table"],
            "additionalProperties": False,
        },
        "columns": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer", "minimum": 1},
    },
    "required": ["target"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "qualified": {"type": "string"},
        "columns": {"type": "array", "items": {"type": "string"}},
        "limit": {"type": "integer"},
        "echo": {"type": "object"},
    },
    "required": ["qualified", "columns", "limit", "echo"],
}


async def list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="describe",
                description="Echo a nested target back as text and structured content.",
                input_schema=INPUT_SCHEMA,
                output_schema=OUTPUT_SCHEMA,
            )
        ]
    )


async def call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    args = dict(params.arguments or {})
    target = args.get("target")
    if params.name != "describe" or not isinstance(target, dict) or "table" not in target:
        return types.CallToolResult(
            content=[types.TextContent(text="describe needs target: {table, schema?}")],
            is_error=True,
        )
    schema = str(target.get("schema", "main"))
    table = str(target["table"])
    columns = [str(c) for c in args.get("columns", [])]
    limit = int(args.get("limit", 10))
    qualified = f"{schema}.{table}"
    text = f"{qualified}\t{','.join(columns)}\t{limit}"
    structured: dict[str, Any] = {
        "qualified": qualified,
        "columns": columns,
        "limit": limit,
        "echo": args,
    }
    if os.environ.get("DEMO_BREAK_OUTPUT") == "1":  # lets a test see the client reject bad output
        del structured["qualified"]
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured
    )


server: Server[Any] = Server(
    "demo-external",
    version="0.1",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
