"""What a service call tells its watchers: each stage's duration, each call's outcome, the
queries running on each source — never a caller, an argument or a cell.

:class:`Observers` is the one place :class:`~sutura.boundary.service.Service` reports to;
the metrics of ``sutura serve`` (``/metrics``) and the traces of the ``otel`` extra watch it.
With no watcher and no tracing, a report costs nothing: each block is one shared empty
context (a server without ``/metrics`` asks four stages a call).
"""

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from contextvars import ContextVar
from enum import StrEnum
from typing import Final, Protocol

from sutura.core.tool.capability import Capability


class Stage(StrEnum):
    """The stages of answering a question, as metrics and traces name them."""

    RESOLVE = "resolve"
    COMPILE = "compile"
    RUN = "run"
    RENDER = "render"


_CAPABILITY: Final[ContextVar[Capability | None]] = ContextVar("sutura.capability", default=None)
_UNOBSERVED: Final[AbstractContextManager[None]] = nullcontext()
"""The block of a stage or a query nobody watches (reentrant: it holds nothing)."""


class CallWatcher(Protocol):
    """Receives what calls come to (metrics)."""

    def stage_done(self, stage: Stage, seconds: float) -> None:
        """A stage of some call took ``seconds``."""
        ...

    def call_done(self, capability: Capability, outcome: str, seconds: float) -> None:
        """A call of ``capability`` came to ``outcome`` (an outcome code) in ``seconds``."""
        ...

    def source_busy(self, source: str, change: int) -> None:
        """A query started (``+1``) or ended (``-1``) on the source ``source``."""
        ...


class Span(Protocol):
    """The part of a trace span a call sets: attributes."""

    def set_attribute(self, key: str, value: str) -> None:
        """Set one attribute."""
        ...


class Tracing(Protocol):
    """Opens spans (traces): one per call, one per stage inside it."""

    def span(self, name: str) -> AbstractContextManager[Span]:
        """A span named ``name``, current for the block."""
        ...


class Observers:
    """Every watcher of one service's calls, and its tracing (if any)."""

    def __init__(self) -> None:
        self._watchers: list[CallWatcher] = []
        self._tracing: Tracing | None = None

    def watch(self, watcher: CallWatcher) -> None:
        """Report every call to ``watcher`` from now on."""
        self._watchers.append(watcher)

    def trace(self, tracing: Tracing) -> None:
        """Open spans with ``tracing`` from now on."""
        self._tracing = tracing

    def stage(self, stage: Stage) -> AbstractContextManager[None]:
        """Time the block as ``stage`` (and trace it as a span ``sutura.<stage>``)."""
        if self._tracing is None and not self._watchers:
            return _UNOBSERVED
        return self._stage(stage)

    @contextmanager
    def _stage(self, stage: Stage) -> Iterator[None]:
        with ExitStack() as stack:
            if self._tracing is not None:
                span = stack.enter_context(self._tracing.span(f"sutura.{stage.value}"))
                span.set_attribute("sutura.stage", stage.value)
                if (capability := _CAPABILITY.get()) is not None:
                    span.set_attribute("sutura.capability", capability.value)
            started = time.monotonic()
            try:
                yield
            finally:
                seconds = time.monotonic() - started
                for watcher in self._watchers:
                    watcher.stage_done(stage, seconds)

    def call_span(self, capability: Capability) -> AbstractContextManager[Span | None]:
        """The span of one call, when traced (the caller sets its outcome on it)."""
        if self._tracing is None:
            return _UNOBSERVED
        return self._call_span(self._tracing, capability)

    @contextmanager
    def _call_span(self, tracing: Tracing, capability: Capability) -> Iterator[Span | None]:
        token = _CAPABILITY.set(capability)
        try:
            with tracing.span("sutura.call") as span:
                span.set_attribute("sutura.capability", capability.value)
                yield span
        finally:
            _CAPABILITY.reset(token)

    def call_done(self, capability: Capability, outcome: str, seconds: float) -> None:
        """Report a finished call."""
        for watcher in self._watchers:
            watcher.call_done(capability, outcome, seconds)

    def source_query(self, source: str) -> AbstractContextManager[None]:
        """Count the block as one query running on ``source``."""
        if not self._watchers:
            return _UNOBSERVED
        return self._source_query(source)

    @contextmanager
    def _source_query(self, source: str) -> Iterator[None]:
        for watcher in self._watchers:
            watcher.source_busy(source, 1)
        try:
            yield
        finally:
            for watcher in self._watchers:
                watcher.source_busy(source, -1)
