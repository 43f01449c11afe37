"""``GET /metrics``: the Prometheus text format, behind its own token.

Written by ``prometheus_client`` from a registry of this app's own (never the process-wide
default, so two apps in one process never share a count). Every label value comes from a
closed vocabulary or from the operator's settings: a capability, an outcome code, a stage, a
source alias, the definitions version and digest. No label ever carries a caller, a request
id, an argument or a cell.

The route exists only when ``security.metrics_token`` is set; a scrape must present it as
``Authorization: Bearer <metrics_token>`` (the ``/v1`` token does not open it, nor this one
``/v1``).
"""

import hmac
from collections.abc import Callable, Iterator
from typing import Any, Final

from litestar import Response, get
from litestar.connection import ASGIConnection
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from sutura.boundary.observe import Stage
from sutura.boundary.service import Service
from sutura.boundary.sources.skeleton import Capacity
from sutura.core.settings import Settings
from sutura.core.tool.capability import Capability
from sutura.transports.http.auth import Guard
from sutura.transports.http.errors import HttpFailureError
from sutura.transports.http.limits import Admission
from sutura.transports.http.wire import FailureCode

_TEXT_FORMAT: Final = "text/plain; version=0.0.4"
"""What ``generate_latest`` writes (litestar adds the charset, UTF-8)."""

# Latency buckets from a cached answer (~1 ms) to a deadline (30 s).
_BUCKETS: Final = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class _State(Collector):
    """What is read when scraped: admission, rate limits, sources, anchors, definitions."""

    def __init__(
        self,
        service: Service,
        settings: Settings,
        admission: Admission,
        limited: Callable[[], int],
    ) -> None:
        self._service = service
        self._settings = settings
        self._admission = admission
        self._limited = limited
        self._busy: dict[str, int] = dict.fromkeys(settings.sources, 0)

    def source_busy(self, source: str, change: int) -> None:
        self._busy[source] = self._busy.get(source, 0) + change

    def collect(self) -> Iterator[Any]:
        """Every state metric, as it is now."""
        admission, settings = self._admission, self._settings
        yield GaugeMetricFamily(
            "sutura_admission_in_flight", "Queries holding an admission slot.", admission.active
        )
        yield GaugeMetricFamily(
            "sutura_admission_limit", "server.max_concurrent_queries.", admission.limit
        )
        yield CounterMetricFamily(
            "sutura_admission_shed", "Queries refused at capacity (503 or isError).", admission.shed
        )
        yield CounterMetricFamily(
            "sutura_rate_limited", "Requests refused by a caller's rate limit (429).",
            self._limited(),
        )  # fmt: skip
        busy = GaugeMetricFamily(
            "sutura_source_queries_in_flight", "Queries running on a source.", labels=["source"]
        )
        pool = GaugeMetricFamily(
            "sutura_source_pool_size", "Connections a source's pool keeps.", labels=["source"]
        )
        statements = GaugeMetricFamily(
            "sutura_source_statements_limit",
            "Statements a source runs at once (the others wait their turn).",
            labels=["source"],
        )
        capacities = self._service.capacities()  # what each running source was given
        for alias in sorted(settings.sources):
            busy.add_metric([alias], self._busy.get(alias, 0))
            capacity = capacities.get(alias, Capacity())
            if capacity.pool_size is not None:
                pool.add_metric([alias], capacity.pool_size)
            if capacity.statements_at_once is not None:
                statements.add_metric([alias], capacity.statements_at_once)
        yield busy
        yield pool
        yield statements
        yield from _cache_families(self._service)
        pinned = self._service.definitions()
        anchored = sum(metric.anchor is not None for metric in pinned.catalog.metrics)
        yield GaugeMetricFamily(
            "sutura_anchors_checked", "Anchors reproduced when the service started.", anchored
        )
        info = InfoMetricFamily("sutura_definitions", "The pinned definitions served.")
        info.add_metric([], {"version": settings.catalog.version, "digest": pinned.digest})
        yield info


def _cache_families(service: Service) -> Iterator[Any]:
    """Each caching source's answer-cache counters (none for a source without a cache)."""
    hits = CounterMetricFamily(
        "sutura_answer_cache_hits", "Answers served from a source's cache.", labels=["source"]
    )
    misses = CounterMetricFamily(
        "sutura_answer_cache_misses",
        "Questions a source's cache did not hold (or held too long).",
        labels=["source"],
    )
    evictions = CounterMetricFamily(
        "sutura_answer_cache_evictions",
        "Answers dropped to keep a source's cache within max_bytes.",
        labels=["source"],
    )
    held = GaugeMetricFamily(
        "sutura_answer_cache_bytes", "Bytes of replies a source's cache holds.", labels=["source"]
    )
    for alias, counts in sorted(service.cache_counts().items()):
        hits.add_metric([alias], counts.hits)
        misses.add_metric([alias], counts.misses)
        evictions.add_metric([alias], counts.evictions)
        held.add_metric([alias], counts.bytes)
    yield from (hits, misses, evictions, held)


class Metrics:
    """This app's registry, and the watcher of its service's calls."""

    def __init__(
        self,
        service: Service,
        settings: Settings,
        admission: Admission,
        limited: Callable[[], int],
    ) -> None:
        disable_created_metrics()  # type: ignore[no-untyped-call]  # no *_created series
        self.registry = CollectorRegistry(auto_describe=True)
        self._state = _State(service, settings, admission, limited)
        self.registry.register(self._state)
        self._calls = Counter(
            "sutura_calls",
            "Capability calls by what they came to: answer, a refusal's code, or a failure.",
            ["capability", "outcome"],
            registry=self.registry,
        )
        self._durations = Histogram(
            "sutura_call_duration_seconds",
            "How long a capability call took.",
            ["capability"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        self._stages = Histogram(
            "sutura_stage_duration_seconds",
            "How long a stage of answering took: resolve, compile, run, render.",
            ["stage"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        # Every series exists from the first scrape; the children are looked up once, not per call.
        self._stage_of = {stage: self._stages.labels(stage.value) for stage in Stage}
        self._duration_of = {c: self._durations.labels(c.value) for c in Capability}
        self._calls_of: dict[tuple[Capability, str], Any] = {}

    def stage_done(self, stage: Stage, seconds: float) -> None:
        """A stage of some call took ``seconds``."""
        self._stage_of[stage].observe(seconds)

    def call_done(self, capability: Capability, outcome: str, seconds: float) -> None:
        """A call came to ``outcome``."""
        key = (capability, outcome)
        counter = self._calls_of.get(key)
        if counter is None:
            counter = self._calls_of[key] = self._calls.labels(capability.value, outcome)
        counter.inc()
        self._duration_of[capability].observe(seconds)

    def source_busy(self, source: str, change: int) -> None:
        """A query started or ended on ``source``."""
        self._state.source_busy(source, change)

    def exposition(self) -> bytes:
        """The registry in the Prometheus text format."""
        return generate_latest(self.registry)


def _scrape_guard(token: str) -> Guard:
    """Admits only ``Authorization: Bearer <token>``, compared in constant time."""
    expected = token.encode("utf-8")

    async def guard(connection: ASGIConnection[Any, Any, Any, Any], _h: BaseRouteHandler) -> None:
        scheme, _, presented = connection.headers.get("authorization", "").partition(" ")
        given = presented.strip().encode("latin-1", errors="replace")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, expected):
            raise HttpFailureError.of(FailureCode.UNAUTHORIZED, {"WWW-Authenticate": "Bearer"})

    return guard


def metrics_route(metrics: Metrics, token: str) -> HTTPRouteHandler:
    """``GET /metrics`` behind ``token``."""

    @get(
        "/metrics",
        guards=[_scrape_guard(token)],
        include_in_schema=False,
        sync_to_thread=False,
    )
    def scrape() -> Response[bytes]:
        return Response(
            metrics.exposition(),
            media_type=_TEXT_FORMAT,
            headers={"Cache-Control": "no-store"},
        )

    return scrape
