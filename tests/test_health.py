"""/healthz and /metrics on a real server bound to 127.0.0.1, over a real app (ACME, SQLite)."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from bot.kb.ingest import ingest_paths
from bot.serve.health import HealthServer, start_health_server
from bot.settings.model import load_settings
from bot.wiring.build import App, build_app
from bot.wiring.metrics import Metrics
from core.contracts.types import Request
from tests.loopback import free_port

ACME = Path(__file__).parent / "fixtures" / "acme"
CHINA24 = "What was ACME China revenue in FY2024?"



def get(server: HealthServer, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def build(tmp_path: Path, **settings: object) -> App:
    app = build_app(load_settings(data_dir=tmp_path, embedder="hashing",
                                  reference_date="2026-06-15", **settings))
    ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
    return app


@pytest.fixture
def app(tmp_path: Path) -> Iterator[App]:
    app = build(tmp_path)
    yield app
    app.close()


@pytest.fixture
def server(app: App) -> Iterator[HealthServer]:
    server = start_health_server(app, host="127.0.0.1", port=0)
    yield server
    server.stop()


def test_healthz_ok_with_only_a_database_configured(server: HealthServer) -> None:
    status, body = get(server, "/healthz")
    assert status == 200
    assert json.loads(body) == {"database": "ok", "vector_store": "off", "llm": "off",
                                "status": "ok"}


def test_healthz_503_when_the_database_is_unreachable(app: App, server: HealthServer) -> None:
    app.storage.engine.dispose()
    # the database "goes away": a PostgreSQL server that is not listening
    app.storage.engine = create_engine(f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/gone",
                               connect_args={"connect_timeout": 2})
    status, body = get(server, "/healthz")
    assert status == 503
    report = json.loads(body)
    assert report["database"] == "error" and report["status"] == "error"


def test_healthz_503_when_the_configured_llm_server_is_down(tmp_path: Path) -> None:
    app = build(tmp_path, llm="openai", llm_base_url=f"http://127.0.0.1:{free_port()}/v1")
    server = start_health_server(app, host="127.0.0.1", port=0)
    try:
        status, body = get(server, "/healthz")
    finally:
        server.stop()
        app.close()
    assert status == 503
    assert json.loads(body) == {"database": "ok", "vector_store": "off", "llm": "error",
                                "status": "error"}


def test_healthz_vector_store_down_when_a_chroma_server_is_configured(tmp_path: Path) -> None:
    app = build(tmp_path, chroma_url=f"http://127.0.0.1:{free_port()}")
    server = start_health_server(app, host="127.0.0.1", port=0)
    try:
        status, body = get(server, "/healthz")
    finally:
        server.stop()
        app.close()
    assert status == 503
    assert json.loads(body)["vector_store"] == "error"


def sample(text: str, name: str, **labels: str) -> float | None:
    """The value of one sample in a Prometheus text exposition, None when absent."""
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return None


def test_metrics_count_answers_by_route_and_level(app: App, server: HealthServer) -> None:
    for _ in range(3):
        assert app.core.pipeline.answer(Request(CHINA24)).succeeded
    status, body = get(server, "/metrics")
    assert status == 200
    # the first was planned, the next two replayed from the exact-hash cache
    assert sample(body, "ricorda_requests_total", route="structured", level="planner") == 1
    assert sample(body, "ricorda_requests_total", route="structured", level="L0a") == 2
    assert sample(body, "ricorda_answer_latency_seconds_count", level="L0a") == 2
    assert sample(body, "ricorda_fastpath_entries") == 1


def test_metrics_count_feedback_by_verdict(app: App, server: HealthServer) -> None:
    turn = app.core.pipeline.answer(Request(CHINA24)).turn_id
    app.core.feedback.record(turn, "u1", "positive", via="test")
    app.core.feedback.record(turn, "u2", "negative", via="test")
    app.core.feedback.record(turn, "u2", "negative", via="test")  # unchanged: not counted again
    body = get(server, "/metrics")[1]
    assert sample(body, "ricorda_feedback_total", verdict="positive") == 1
    assert sample(body, "ricorda_feedback_total", verdict="negative") == 1
    # the negative verdict replaced the plan by a rejection marker (core.fastpath.rejections): one
    # row
    assert sample(body, "ricorda_fastpath_entries") == 1
    assert [e.origin for e in app.storage.fastpaths.list()] == ["rejected"]


def test_a_failing_observer_never_costs_an_answer_or_a_verdict(
    app: App, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(_: object) -> None:
        raise RuntimeError("metrics backend exploded")

    app.core.pipeline.on_answer = broken
    app.core.feedback.on_feedback = broken
    with caplog.at_level(logging.ERROR):
        answer = app.core.pipeline.answer(Request(CHINA24))
        outcome = app.core.feedback.record(answer.turn_id, "u1", "positive", via="test")
    assert answer.succeeded and "1,320" in answer.text
    assert outcome.applied
    assert app.storage.turns.get_turn(answer.turn_id) is not None
    assert caplog.text.count("observer failed") == 2


def test_two_apps_keep_separate_counters(tmp_path: Path) -> None:
    one, two = Metrics(), Metrics()
    one.observe_feedback("positive")
    assert "ricorda_feedback_total" in one.render().decode()
    assert sample(two.render().decode(), "ricorda_feedback_total", verdict="positive") is None


def test_unknown_path_is_404(server: HealthServer) -> None:
    assert get(server, "/admin")[0] == 404


def test_the_port_is_free_again_after_stop(app: App) -> None:
    port = free_port()
    start_health_server(app, host="127.0.0.1", port=port).stop()
    start_health_server(app, host="127.0.0.1", port=port).stop()  # no "address in use"
