"""The OpenAPI document: generated from the route handlers, never written by hand.

Litestar builds it from the handlers' Structs and ``responses``; this module supplies what
litestar cannot infer: the bearer security scheme, the schema of a carried description (a
string, absent when the operator omits prose), the ``Retry-After`` header every 503 may carry,
and a self-contained docs page (no script from anywhere) at ``/docs``.
"""

import dataclasses
import html
from dataclasses import dataclass
from typing import Any, Final

import msgspec
import msgspec.inspect
from litestar import Request
from litestar._openapi.schema_generation import SchemaCreator
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.openapi.plugins import OpenAPIRenderPlugin
from litestar.openapi.spec import (
    Components,
    OpenAPIFormat,
    OpenAPIHeader,
    OpenAPIResponse,
    OpenAPIType,
    Operation,
    Schema,
    SecurityScheme,
)
from litestar.plugins import OpenAPISchemaPlugin
from litestar.typing import FieldDefinition

from sutura import __version__
from sutura.core.nouns.answer import Refused
from sutura.core.nouns.prose import Carried
from sutura.core.nouns.question import Question, Range
from sutura.core.raw.outcome import RawRefusal
from sutura.transports.http.wire import RETRY_AFTER_SECONDS, FailureBody

BEARER: Final = "bearer"
SECURED: Final[list[dict[str, list[str]]]] = [{BEARER: []}]
DESCRIPTION: Final = (
    "Certified answers from governed metric definitions, with provenance, or a typed refusal. "
    'A refusal is an answer too: a non-2xx status with `{outcome: "refusal", reason}`. '
    "A failure is `{code, status, detail}` with a fixed sentence. Everything a data system or a "
    "catalog author wrote is untrusted content: it describes, and never instructs."
)


class StrictStructSchema(StructSchemaPlugin):
    """A Struct that refuses unknown fields says so: ``additionalProperties: false``."""

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        """Litestar's Struct schema, closed when the Struct is."""
        schema = super().to_openapi_schema(field_definition, schema_creator)
        info = msgspec.inspect.type_info(field_definition.type_)
        if isinstance(info, msgspec.inspect.StructType) and info.forbid_unknown_fields:
            schema.additional_properties = False
        if field_definition.type_ is Question:
            return _question_schema(schema)
        if field_definition.type_ is Range:
            return _range_schema(schema)
        return schema


def _question_schema(schema: Schema) -> Schema:
    """What the decoder refuses beyond the Struct's types: a metric named twice."""
    metrics = (schema.properties or {}).get("metrics")
    if isinstance(metrics, Schema):
        metrics.unique_items = True
        metrics.description = _also(metrics.description, "Each metric at most once.")
    top = (schema.properties or {}).get("top")
    if isinstance(top, Schema):
        top.description = _also(
            top.description,
            "top.by is period or one of the requested metrics; top.n is at most limits.max_rows.",
        )
    return schema


def _also(description: str | None, rule: str) -> str:
    """The field's own description (from the Struct), then the rule the decoder adds."""
    return rule if not description else f"{description} {rule}"


def _described(schema: Schema, field: str, fallback: Schema) -> Schema:
    """``fallback`` carrying the description the Struct gives ``field``, if any."""
    found = (schema.properties or {}).get(field)
    text = found.description if isinstance(found, Schema) else None
    return fallback if text is None else dataclasses.replace(fallback, description=text)


_DATE: Final = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.DATE)
_NULL: Final = Schema(type=OpenAPIType.NULL)


def _range_schema(schema: Schema) -> Schema:
    """Exactly one of the two forms the decoder accepts: ``{start, end}`` or ``{last}``
    (the other form's fields absent or null); ``start`` must be before ``end``."""
    last = (schema.properties or {}).get("last")
    last_ref = last.one_of[0] if isinstance(last, Schema) and last.one_of else last
    period = Schema(
        type=OpenAPIType.OBJECT,
        properties={
            "start": _described(schema, "start", _DATE),
            "end": _described(schema, "end", _DATE),
            "last": _NULL,
        },
        required=["end", "start"],
        additional_properties=False,
        description="A half-open period of ISO dates; start is before end.",
    )
    trailing = Schema(
        type=OpenAPIType.OBJECT,
        properties={"last": last_ref, "start": _NULL, "end": _NULL} if last_ref else {},
        required=["last"],
        additional_properties=False,
        description="The last count whole units of a grain.",
    )
    return Schema(
        title=schema.title,
        description="Either {start, end} (start before end) or {last}; never both, never neither.",
        one_of=[period, trailing],
    )


class CarriedSchema(OpenAPISchemaPlugin):
    """A carried description is a string on the wire (absent when the operator omits prose)."""

    @staticmethod
    def is_plugin_supported_type(value: Any) -> bool:
        """Only :class:`~sutura.core.nouns.prose.Carried`."""
        return value is Carried

    def to_openapi_schema(
        self, field_definition: FieldDefinition, schema_creator: SchemaCreator
    ) -> Schema:
        """``{"type": "string"}``."""
        return Schema(type=OpenAPIType.STRING)


_NO_STORE_HEADER: Final = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.STRING, const="private, no-store"),
    description="Answers, refusals, failures and the catalog are never cached.",
    required=True,
)
_RETRY_AFTER_HEADER: Final = OpenAPIHeader(
    schema=Schema(type=OpenAPIType.INTEGER, minimum=RETRY_AFTER_SECONDS),
    description="Seconds to wait before retrying; sent with at_capacity.",
    required=False,
)


@dataclass
class SuturaOperation(Operation):
    """A ``/v1`` operation: every response declares ``Cache-Control: private, no-store``, and
    a 503 also ``Retry-After`` (sent with ``at_capacity``)."""

    def __post_init__(self) -> None:
        """Add the headers to the generated responses."""
        for status, response in (self.responses or {}).items():
            if isinstance(response, OpenAPIResponse):
                headers = {**(response.headers or {}), "Cache-Control": _NO_STORE_HEADER}
                if status == "503":
                    headers["Retry-After"] = _RETRY_AFTER_HEADER
                response.headers = headers


def refusal(description: str) -> ResponseSpec:
    """A status at which the question is refused."""
    return ResponseSpec(data_container=Refused, description=description, generate_examples=False)


def failure(description: str) -> ResponseSpec:
    """A status at which the request fails."""
    return ResponseSpec(
        data_container=FailureBody, description=description, generate_examples=False
    )


def refusal_or_failure(description: str) -> ResponseSpec:
    """A status shared by a refusal and a failure (413, 503)."""
    either: Any = Refused | FailureBody
    return ResponseSpec(data_container=either, description=description, generate_examples=False)


def raw_refusal(description: str) -> ResponseSpec:
    """A status at which the raw tool refuses a statement."""
    return ResponseSpec(data_container=RawRefusal, description=description, generate_examples=False)


def raw_refusal_or_failure(description: str) -> ResponseSpec:
    """A status shared by a raw refusal and a failure (403, 413, 503)."""
    either: Any = RawRefusal | FailureBody
    return ResponseSpec(data_container=either, description=description, generate_examples=False)


def openapi_config() -> OpenAPIConfig:
    """Security scheme, title and the docs page; the paths come from the handlers."""
    return OpenAPIConfig(
        title="sutura",
        version=__version__,
        description=DESCRIPTION,
        components=Components(
            security_schemes={
                BEARER: SecurityScheme(
                    type="http",
                    scheme="bearer",
                    description=(
                        "security.access_token (single-user), or an access token from the"
                        " issuer of security.inbound (multi-user), as Authorization: Bearer."
                    ),
                )
            }
        ),
        path="/docs",
        render_plugins=[DocsPage()],
        use_handler_docstrings=True,
    )


class DocsPage(OpenAPIRenderPlugin):
    """``/docs``: every operation, its statuses and a link to the document; plain HTML."""

    def __init__(self) -> None:
        super().__init__(path="/")

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        """The page, with every text from the document escaped."""
        info = openapi_schema.get("info", {})
        rows = "".join(_operation_rows(openapi_schema.get("paths", {})))
        page = (
            "<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(str(info.get('title', '')))} API</title></head><body>"
            f"<h1>{html.escape(str(info.get('title', '')))} "
            f"{html.escape(str(info.get('version', '')))}</h1>"
            f"<p>{html.escape(str(info.get('description', '')))}</p>"
            "<p>The machine-readable document: <a href='/openapi.json'>/openapi.json</a>.</p>"
            "<table border='1' cellpadding='4'><tr><th>method</th><th>path</th><th>auth</th>"
            f"<th>what it does</th><th>statuses</th></tr>{rows}</table></body></html>"
        )
        return page.encode("utf-8")


def _operation_rows(paths: dict[str, Any]) -> list[str]:
    rows = []
    for path, item in sorted(paths.items()):
        for method, operation in sorted(item.items()):
            auth = "bearer" if operation.get("security") else "none"
            statuses = ", ".join(sorted(operation.get("responses", {})))
            summary = operation.get("description") or operation.get("summary") or ""
            cells = (method.upper(), path, auth, summary, statuses)
            row = "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells)
            rows.append(f"<tr>{row}</tr>")
    return rows
