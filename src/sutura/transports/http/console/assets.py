"""The console's static files, read once from the package, and the headers they are sent with.

The page holds no data and no secret, so its files are served without a token (a browser
cannot send one while navigating); everything it shows comes from bearer-authenticated routes.
The policy forbids inline script, ``eval``, inline style, frames and every origin but this one.
"""

from dataclasses import dataclass
from importlib.resources import files
from typing import Final

from litestar import Response, get
from litestar.handlers import HTTPRouteHandler

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""No inline script or style, no ``eval``, no frames, nothing from any other origin."""

HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


@dataclass(frozen=True, slots=True)
class Asset:
    """One static file: where it is served, its package file and its media type."""

    path: str
    name: str
    media_type: str


ASSETS: Final = (
    Asset("/", "index.html", "text/html"),
    Asset("/console/console.css", "console.css", "text/css"),
    Asset("/console/console.js", "console.js", "text/javascript"),
    Asset("/console/icon.svg", "icon.svg", "image/svg+xml"),
)
"""Every file the page loads; first load is the sum of their sizes."""


def asset_bytes(asset: Asset) -> bytes:
    """The file's bytes, from the installed package."""
    return files("sutura.transports.http.console").joinpath("static", asset.name).read_bytes()


def asset_route(asset: Asset) -> HTTPRouteHandler:
    """The route serving ``asset`` (its bytes read now, once)."""
    body = asset_bytes(asset)

    @get(asset.path, sync_to_thread=False, include_in_schema=False, name=asset.name)
    def static() -> Response[bytes]:
        return Response(body, media_type=asset.media_type, headers=HEADERS)

    return static


def asset_routes() -> list[HTTPRouteHandler]:
    """The routes of every static file."""
    return [asset_route(asset) for asset in ASSETS]
