"""What the server says before it answers anything, decided once from the loaded settings.

:func:`surface_of` is the one place this transport reads ``prompt.catalog_prose``: from the
settings the composition loaded, never from a default or an argument a caller chose. The same
loaded value builds the prompt (the ``initialize`` instructions, :meth:`Loaded.prompt`, which
reads the same setting) and the catalog view whose two halves answer ``describe_catalog``, so
no carrier of catalog prose can disagree with another.
"""

from dataclasses import dataclass

import mcp_types as types
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from sutura.boundary.startup import Loaded
from sutura.core.catalog.view import CatalogView
from sutura.core.codec import Halves, catalog_halves
from sutura.core.text.render import render_refusal
from sutura.transports.mcp.tools import tools_for


@dataclass(frozen=True, slots=True)
class Surface:
    """The instructions, the tool list and the catalog reply, for one pinned catalog."""

    instructions: str
    tools: types.ListToolsResult
    catalog: types.CallToolResult


def tool_result(halves: Halves) -> types.CallToolResult:
    """A tool result carrying both halves of one value: the text, and the structured JSON."""
    return types.CallToolResult(
        content=[types.TextContent(text=halves.text)],
        structured_content=halves.structured_object(),
    )


def surface_of(loaded: Loaded) -> Result[Surface, list[str]]:
    """The surface of ``loaded`` under its own settings; why it cannot be served otherwise."""
    settings = loaded.loaded.settings
    prose = settings.prompt.catalog_prose
    tools = tools_for(settings.tools)
    halves = catalog_halves(CatalogView.of(loaded.pinned, prose))
    if not is_successful(halves):
        refused = render_refusal(halves.failure())
        return Failure([f"catalog: describe_catalog cannot carry this catalog: {refused}"])
    return Success(
        Surface(
            instructions=loaded.prompt(),
            tools=types.ListToolsResult(tools=list(tools)),
            catalog=tool_result(halves.unwrap()),
        )
    )
