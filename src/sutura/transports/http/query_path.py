"""``POST /v1/query`` answered beside litestar's routing, as the route would answer it.

For each request litestar finds the route, builds its middleware and a copy of its kwargs
model, reads the body through a streaming generator and a ``Request``'s header mapping, and
wraps the handler's reply in layers of hooks: about as much Python as the question itself costs
the event loop. A question is answered here instead when, and only when, each step the route
takes is known to be the one taken here:

* the request is ``POST /v1/query`` with no query string and no ``root_path``;
* it has one ``Host`` header, and the gate answers it (:class:`~.gate.HostDecisions`);
* it has one ``Content-Type``, JSON as :func:`~.gate.is_json` reads it;
* it has one ``Content-Length``, ASCII digits within ``server.max_body_bytes``, and no
  ``Transfer-Encoding``.

Then the route's own steps run here, in its order, with its own functions: the request's id
and log scope (:mod:`.request_ids`), the deadline (:func:`~.limits.started_deadline`), the
route's guards themselves (the caller, the rate limit, the capability, JSON), the body read
within the deadline and the size bound as litestar reads it, decoded by the route's own body
decoder, the admission slot and the call (:meth:`~.routes.Calls.body_call`). Whatever any
step raises is answered by the app's exception handlers (:func:`~.errors.response_to`), and
every response is sent as litestar sends it, under the app's ``before_send``: an answer built
here (:func:`_send_answer`: litestar's response machinery cost more than the rest of this
path), any other through ``Response.to_asgi_response``. Every other request goes to litestar
untouched (nothing of it has been read).
``tests/transports/http/test_query_path.py`` holds the two paths' responses equal: the status,
every header in order and the body, over a corpus of well-formed and hostile requests.
"""

from typing import Any, Final, cast

from litestar import Request
from litestar.enums import ScopeType
from litestar.exceptions import InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.handlers import HTTPRouteHandler
from litestar.types import ASGIApp, Receive, Scope, Send

from sutura.boundary.logs import request_scope
from sutura.core.tool.capability import Capability
from sutura.core.tool.reply import Answered
from sutura.transports.http.auth import Guard
from sutura.transports.http.body import QuestionBody
from sutura.transports.http.errors import response_to
from sutura.transports.http.gate import HostDecisions, is_json
from sutura.transports.http.limits import received_by, started_deadline
from sutura.transports.http.replies import ANSWER_HEADERS, response_of
from sutura.transports.http.request_ids import request_id_of
from sutura.transports.http.routes import Calls

ENABLED: Final = True
"""Whether the path is taken at all (the tests compare it with the route by turning it off)."""

PATH: Final = "/v1/query"
_ASKING: Final = Capability.ASK_METRIC


class QueryPath:
    """ASGI: ``POST /v1/query`` answered here when it can be (see the module), every other
    request handed to ``app`` (the app's own handler, under its ``before_send``)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        route: HTTPRouteHandler,
        calls: Calls,
        hosts: HostDecisions,
        max_body_bytes: int,
    ) -> None:
        self.app = app
        self.route = route
        self.calls = calls
        self.hosts = hosts
        self.max_body_bytes = max_body_bytes
        # The route's own guards: every one of them is sutura's, and async (auth.py, gate.py).
        self.guards = tuple(cast("Guard", guard) for guard in route.guards or ())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a question here when every step is known; hand anything else on."""
        if self._takes(scope):
            await self._answer(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _takes(self, scope: Scope) -> bool:
        """Whether this path takes the request (the module names which it takes)."""
        if not (
            ENABLED
            and scope["type"] == ScopeType.HTTP
            and scope["path"] == PATH
            and scope.get("method") == "POST"
            and not scope.get("query_string")
            and not scope.get("root_path")
        ):
            return False
        hosts = content_types = lengths = 0
        host = content_type = length = b""
        for name, value in scope["headers"]:
            if name == b"host":
                hosts += 1
                host = value
            elif name == b"content-type":
                content_types += 1
                content_type = value
            elif name == b"content-length":
                lengths += 1
                length = value
            elif name == b"transfer-encoding":
                return False
        return (
            hosts == content_types == lengths == 1
            and length.isdigit()
            and int(length) <= self.max_body_bytes
            and is_json(content_type)
            and self.hosts.allows(host)
        )

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        with request_scope(request_id_of(scope)):
            deadline = started_deadline(scope, self.calls.timeout)
            request: Request[Any, Any, Any] = Request(scope, receive, send)
            try:
                for guard in self.guards:
                    await guard(request, self.route)
                body = await self._body(receive, deadline)
                question = QuestionBody(request).decode_bytes(body) if body else None
                reply = await self.calls.body_call(_ASKING, question, request, slot=True)
            except Exception as exc:  # answered as the app's handlers answer it
                response = response_to(request, exc)
            else:
                if isinstance(reply, Answered):
                    await _send_answer(send, reply.halves.structured)
                    return
                response = response_of(reply)
            await response.to_asgi_response(app=None, request=request)(scope, receive, send)

    async def _body(self, receive: Receive, deadline: float) -> bytes:
        """The whole body, as litestar's ``Request.stream`` reads it, within ``deadline``."""
        chunks: list[bytes] = []
        received = 0
        while True:
            message = await received_by(receive, deadline)
            if message["type"] == "http.request":
                chunk = message["body"]
                if chunk:
                    received += len(chunk)
                    if received > self.max_body_bytes:
                        raise RequestEntityTooLarge
                    chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
            elif message["type"] == "http.disconnect":
                raise InternalServerException("client disconnected prematurely")


async def _send_answer(send: Send, body: bytes) -> None:
    """An answer, sent as litestar sends :func:`~.replies.response_of`'s ``200`` (its status,
    its headers in its order, its body in one message), built here: for a question, litestar's
    response machinery cost more than the rest of this path."""
    headers = [*ANSWER_HEADERS, (b"content-length", str(len(body)).encode("latin-1"))]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})
