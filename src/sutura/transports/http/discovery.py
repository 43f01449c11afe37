"""OAuth 2.0 Protected Resource Metadata (RFC 9728), so clients find the authorization server.

Served only under ``multi-user``, at the well-known URL of ``security.inbound.resource``
(``/.well-known/oauth-protected-resource`` followed by the resource's path, if any), and
named by every ``401``'s ``WWW-Authenticate: Bearer resource_metadata="…"``.

>>> metadata_url("https://metrics.example.com/")
'https://metrics.example.com/.well-known/oauth-protected-resource'
>>> metadata_path("https://metrics.example.com/mcp")
'/.well-known/oauth-protected-resource/mcp'
"""

import urllib.parse
from typing import Final

import msgspec

from sutura.core.settings import InboundSettings
from sutura.core.tool.capability import Scope

WELL_KNOWN: Final = "/.well-known/oauth-protected-resource"


class ProtectedResource(msgspec.Struct, frozen=True, kw_only=True):
    """The metadata document (RFC 9728 §2)."""

    resource: str
    authorization_servers: list[str]
    scopes_supported: list[str]
    bearer_methods_supported: list[str]
    resource_name: str = "sutura"


def metadata_path(resource: str) -> str:
    """The path the metadata of ``resource`` is served at."""
    path = urllib.parse.urlsplit(resource).path.rstrip("/")
    return WELL_KNOWN + path


def metadata_url(resource: str) -> str:
    """The URL the metadata of ``resource`` is served at."""
    parts = urllib.parse.urlsplit(resource)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, metadata_path(resource), "", ""))


def protected_resource(inbound: InboundSettings) -> ProtectedResource:
    """The metadata document of this deployment."""
    return ProtectedResource(
        resource=inbound.resource,
        authorization_servers=inbound.authorization_servers or [inbound.issuer],
        scopes_supported=[scope.value for scope in Scope],
        bearer_methods_supported=["header"],
    )
