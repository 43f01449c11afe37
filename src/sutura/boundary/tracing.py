"""OpenTelemetry traces of every call (the ``otel`` extra: ``pip install 'sutura[otel]'``).

With ``tracing.enabled``, each capability call is a span ``sutura.call`` (attributes
``sutura.capability`` and ``sutura.outcome``) holding one span per stage it ran:
``sutura.resolve``, ``sutura.compile``, ``sutura.run``, ``sutura.render`` (each with
``sutura.capability`` and ``sutura.stage``). They go to the tracer provider the process has
(configure its exporter the usual OpenTelemetry way, e.g. ``opentelemetry-instrument`` or the
SDK's ``OTEL_*`` variables). No span carries a caller, an argument or a cell.

Nothing here is imported unless tracing is enabled, so a deployment without it pays nothing.
"""

from contextlib import AbstractContextManager
from typing import Any, Final

from returns.result import Failure, Result, Success

from sutura.boundary.observe import Span, Tracing

INSTALL: Final = "tracing.enabled: needs the otel extra (pip install 'sutura[otel]')"


class OtelTracing:
    """Spans from an OpenTelemetry tracer."""

    def __init__(self, tracer: Any) -> None:
        self._tracer = tracer

    def span(self, name: str) -> AbstractContextManager[Span]:
        """A span named ``name``, current for the block."""
        started: AbstractContextManager[Span] = self._tracer.start_as_current_span(name)
        return started


def otel_tracing(provider: Any = None) -> Result[Tracing, str]:
    """Tracing through ``provider`` (the process's global provider when None), or why not."""
    try:
        import opentelemetry.sdk  # noqa: F401 (the extra: without it spans go nowhere)
        from opentelemetry import trace
    except ImportError:
        return Failure(INSTALL)
    from sutura import __version__

    return Success(OtelTracing(trace.get_tracer("sutura", __version__, tracer_provider=provider)))
