"""`GET /healthz` and `GET /metrics` on a small HTTP server beside the bot.

A load balancer or orchestrator asks /healthz whether this replica can answer: 503 `warming`
while `ricorda serve` still loads its models and indexes, then 200 when every configured part
(database, vector store, LLM) is reachable, 503 naming the part that is not. HEAD answers the
same status without a body.
Parts that are not configured report "off" and never fail the check. Prometheus scrapes
/metrics. The server runs on a daemon thread: it must never hold the bot up or keep it alive.

Settings: RICORDA_METRICS_HOST (default 127.0.0.1: metrics are not for the internet) and
RICORDA_METRICS_PORT (default 9108).
"""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text

from bot.wiring.metrics import CONTENT_TYPE, Metrics
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from bot.wiring.build import App

log = logging.getLogger("ricorda.health")

OK, ERROR, OFF, WARMING = "ok", "error", "off", "warming"
PROBE_TIMEOUT_S = 2.0


# -- the checks --------------------------------------------------------------------------------


def check_database(app: App) -> str:
    try:
        with app.storage.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as exc:  # any failure means "cannot answer from here"
        log.warning("health: database unreachable: %s", exc)
        return ERROR
    return OK


def check_vector_store(app: App) -> str:
    """Chroma is needed once documents are ingested or a server is configured; its heartbeat
    (a server) or opening it (embedded) says whether retrieval can run."""
    s = app.settings
    try:
        if not s.chroma_url and not app.core.documents.chunks.documents():
            return OFF
        from storage.vector_store import ChromaVectorIndex

        # the same client settings as the index: embedded Chroma refuses a second configuration
        client = ChromaVectorIndex._connect(None if s.chroma_url else s.data_dir, s.chroma_url)
        client.heartbeat()
    except Exception as exc:
        log.warning("health: vector store unreachable: %s", exc)
        return ERROR
    return OK


def check_llm(app: App) -> str:
    """llama-cpp: the model file is there; openai: the server answers at all (any status below
    500; an auth error still means it is up), within a short timeout. Nothing is generated."""
    s = app.settings
    choice = s.llm.strip().lower()
    if choice in ("", "none", "off"):
        return OFF
    try:
        if choice == "llama-cpp":
            return OK if s.llm_model_path and Path(s.llm_model_path).is_file() else ERROR
        if choice == "openai" and s.llm_base_url:
            import httpx

            response = httpx.get(s.llm_base_url, timeout=PROBE_TIMEOUT_S)
            return OK if response.status_code < 500 else ERROR
    except Exception as exc:
        log.warning("health: LLM unreachable: %s", exc)
    return ERROR


def health(app: App, ready: threading.Event | None = None) -> tuple[int, dict[str, str]]:
    """(HTTP status, report): 503 while warming up, or as soon as one configured part is
    unreachable."""
    if ready is not None and not ready.is_set():
        return 503, {"status": WARMING}
    report = {
        "database": check_database(app),
        "vector_store": check_vector_store(app),
        "llm": check_llm(app),
    }
    from bot.kb.sources import health_line

    if _declares_sources(app):  # "stale: why": still 200, serving the last good figures
        report["fact_sources"] = health_line()
    healthy = ERROR not in report.values()
    report["status"] = OK if healthy else ERROR
    return (200 if healthy else 503), report


def _declares_sources(app: App) -> bool:
    from core.contracts.errors import RicordaError

    try:
        return bool(app.core.glossary.facts)
    except RicordaError:  # no glossary yet
        return False


# -- the server --------------------------------------------------------------------------------


class HealthServer:
    """The running server; `stop()` shuts it down and frees the port."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread) -> None:
        self._server = server
        self._thread = thread

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def start_health_server(
    app: App,
    *,
    metrics: Metrics | None = None,
    host: str | None = None,
    port: int | None = None,
    ready: threading.Event | None = None,
) -> HealthServer:
    """Serve /healthz and /metrics for `app` on a daemon thread (port 0: any free port).

    Without `metrics`, the app's own (`app.core.metrics`, which its pipeline and feedback report
    to). With `ready`, /healthz says 503 `warming` until it is set."""
    s = app.settings
    host = host if host is not None else s.metrics_host
    port = port if port is not None else s.metrics_port
    if metrics is None:
        metrics = app.core.metrics
    handler = _handler(app, metrics, ready)
    try:
        server = ThreadingHTTPServer((host, port), handler)
    except OSError as exc:
        raise ConfigError(
            f"cannot serve /healthz and /metrics on {host}:{port} ({exc.strerror}); "
            "set RICORDA_METRICS_PORT (0 picks a free port)"
        ) from exc
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="ricorda-health")
    thread.start()
    log.info("health and metrics on http://%s:%s/healthz and /metrics", host, server.server_port)
    return HealthServer(server, thread)


def _handler(
    app: App, metrics: Metrics, ready: threading.Event | None
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self, *, head: bool = False) -> None:
            path = self.path.split("?", 1)[0]
            if path == "/healthz":
                status, report = health(app, ready)
                self._send(status, "application/json", json.dumps(report).encode(), head)
            elif path == "/metrics":
                self._send(200, CONTENT_TYPE, metrics.render(), head)
            else:
                self._send(404, "text/plain", b"not found\n", head)

        def do_HEAD(self) -> None:
            self.do_GET(head=True)

        def _send(self, status: int, content_type: str, body: bytes, head: bool) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if not head:
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            log.debug("%s " + format, self.address_string(), *args)

    return Handler
