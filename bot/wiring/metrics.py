"""Prometheus metrics for one app: what the pipeline served, how fast, and what users thought.

Core stays SDK-free: it calls two plain hooks (`Pipeline.on_answer`, `Feedback.on_feedback`);
this module turns them into prometheus-client metrics on a registry of its own, so two apps in
one process (tests, replicas in a harness) never share or clash over counters.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from core.contracts.types import Answer

log = logging.getLogger("ricorda.metrics")

CONTENT_TYPE = CONTENT_TYPE_LATEST  # prometheus_client's own exposition format
# L0a answers in about a millisecond, the planner with an LLM in seconds
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


class Metrics:
    """The counters of one app; `observe_answer` and `observe_feedback` are the core hooks."""

    def __init__(self, *, cache_size: Callable[[], int] | None = None) -> None:
        """`cache_size` (the fastpath store's `count`) is read at scrape time, not per answer."""
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "ricorda_requests", "Answers given, by route and serving level",
            ["route", "level"], registry=self.registry,
        )
        self.latency = Histogram(
            "ricorda_answer_latency_seconds", "Time to answer, by serving level",
            ["level"], buckets=LATENCY_BUCKETS, registry=self.registry,
        )
        self.feedback = Counter(
            "ricorda_feedback", "Verdicts recorded (new or changed)",
            ["verdict"], registry=self.registry,
        )
        self.deliveries = Counter(
            "ricorda_scheduled_deliveries", "Scheduled deliveries (subscriptions) by outcome: "
            "sent, failed (for good), retried, late (sent after their time, with a note), "
            "missed (past the grace period, not sent)",
            ["outcome"], registry=self.registry,
        )
        self._answer_children: dict[tuple[str, str], tuple[Any, Any]] = {}
        if cache_size is not None:
            self.registry.register(_CacheSize(cache_size))
        # process_* (CPU, memory, file descriptors, start time), python_gc_*, python_info:
        # the library's own collectors, which read the process they run in
        for collector in (PROCESS_COLLECTOR, GC_COLLECTOR, PLATFORM_COLLECTOR):
            self.registry.register(collector)

    def observe_answer(self, answer: Answer) -> None:
        """Runs before every answer is returned: the labelled children are looked up once per
        (route, level) and kept (two `labels()` lookups were ~15 us of an L0a repeat)."""
        level = answer.served_by or "none"
        key = (answer.route_name, level)
        children = self._answer_children.get(key)
        if children is None:  # a race here only looks the same children up twice
            children = self._answer_children[key] = (
                self.requests.labels(route=key[0], level=level),
                self.latency.labels(level=level),
            )
        children[0].inc()
        children[1].observe(max(answer.latency_ms, 0.0) / 1000)

    def observe_feedback(self, verdict: str) -> None:
        self.feedback.labels(verdict=verdict).inc()

    def observe_delivery(self, outcome: str) -> None:
        self.deliveries.labels(outcome=outcome).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition of this app's metrics."""
        return generate_latest(self.registry)


class _CacheSize(Collector):
    """L0 entries, counted when scraped; a failing count is left out, not a failed scrape."""

    def __init__(self, count: Callable[[], int]) -> None:
        self._count = count

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("ricorda_fastpath_entries", "L0 plan-cache entries")

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            value = self._count()
        except Exception as exc:  # the database being down is /healthz's news, not ours
            log.warning("cannot count fastpath entries for metrics: %s", exc)
            return
        yield GaugeMetricFamily("ricorda_fastpath_entries", "L0 plan-cache entries", value=value)

