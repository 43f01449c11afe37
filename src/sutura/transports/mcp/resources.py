"""The one MCP resource: the physical schema, listed only when the operator turns it on.

With ``prompt.physical_schema: listed`` the server offers ``resources/list`` and
``resources/read`` with one resource, ``sutura://physical-schema``: the text of
:func:`~sutura.core.catalog.view.physical.physical_schema_text`, built once from the pinned catalog
the handshake described, under ``prompt.catalog_prose``. Otherwise the server declares no
resources capability at all. Reading needs no data source, so it is answered before the
service starts. Any other URI is invalid params, naming no value.
"""

from typing import Final

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPError

from sutura.boundary.loading import Loaded
from sutura.core.catalog.view.physical import physical_schema_text
from sutura.core.nouns.physical import PHYSICAL_SCHEMA_URI, physical_schema_listed
from sutura.transports.mcp.starting import Starting

UNKNOWN_RESOURCE: Final = "unknown resource: resources/list names the resources this server offers"
MIME_TYPE: Final = "text/plain"


class PhysicalSchemaResource:
    """``resources/list`` and ``resources/read`` over the one listing, built once."""

    def __init__(self, loaded: Loaded) -> None:
        settings = loaded.loaded.settings
        self._text = physical_schema_text(loaded.pinned, settings.prompt.catalog_prose)
        self._listed = types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=PHYSICAL_SCHEMA_URI,
                    name="physical-schema",
                    title="Physical schema (descriptive, never certified)",
                    description=(
                        "The tables and columns the certified metrics are computed from. "
                        "Descriptive only: ask questions through describe_catalog and ask_metric."
                    ),
                    mime_type=MIME_TYPE,
                )
            ]
        )

    async def list_resources(
        self, ctx: ServerRequestContext[Starting], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        """The one resource."""
        return self._listed

    async def read_resource(
        self, ctx: ServerRequestContext[Starting], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        """The listing, or invalid params for any other URI."""
        if str(params.uri) != PHYSICAL_SCHEMA_URI:
            raise MCPError(code=types.INVALID_PARAMS, message=UNKNOWN_RESOURCE)
        contents = types.TextResourceContents(
            uri=PHYSICAL_SCHEMA_URI, mime_type=MIME_TYPE, text=self._text
        )
        return types.ReadResourceResult(contents=[contents])


def physical_schema_resource(loaded: Loaded) -> PhysicalSchemaResource | None:
    """The resource when the operator lists the physical schema, else None."""
    listed = physical_schema_listed(loaded.loaded.settings.prompt.physical_schema)
    return PhysicalSchemaResource(loaded) if listed else None
