"""`ricorda serve`: run every configured chat platform, each through its runner (bot.serve.runner).

The order is fixed for every platform: all the runners' checks (settings and ports, then the
platforms asked about the tokens), then the shared parts (the health and metrics server, the
models and indexes warmed up, the nightly maintenance timer), then the runners themselves.
A mistake in any runner's settings therefore stops `ricorda serve` before a port is bound, a
thread started or a platform connected.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.serve.mattermost import MATTERMOST
from bot.serve.runner import Runner, check_port_free
from bot.serve.slack import SLACK
from bot.serve.teams import TEAMS
from bot.serve.telegram import TELEGRAM
from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from bot.settings.model import Settings
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")

# every platform `ricorda serve` knows; a new one adds its runner here
RUNNERS: tuple[Runner, ...] = (TELEGRAM, SLACK, TEAMS, MATTERMOST)


def configured_runners(settings: Settings, runners: Sequence[Runner] = RUNNERS) -> list[Runner]:
    """The runners these settings turn on; ConfigError naming every switch when none is."""
    chosen = [r for r in runners if r.configured(settings)]
    if not chosen:
        switches = " and/or ".join(r.switch for r in runners)
        raise ConfigError(f"no platform configured: set {switches}")
    if sum(r.needs_main_thread for r in chosen) > 1:  # a registry mistake, not the deployer's
        raise ConfigError("two platforms both need the main thread: they cannot run together")
    return chosen


def run_serve(app: App, runners: Sequence[Runner] = RUNNERS) -> None:
    """Block serving every configured platform until SIGINT/SIGTERM.

    Every runner is checked first (settings and ports, then the platforms' answers about the
    tokens); then /healthz answers 503 `warming` while the models and indexes load
    (bot.serve.warmup), the nightly timer starts, and only then are updates taken."""
    from bot.serve.extras import require_extras

    chosen = configured_runners(app.settings, runners)
    require_extras(r.name for r in chosen)  # before the knowledge base: the first thing to fix
    app.core.glossary  # noqa: B018  (fail now, not at the first question, without a knowledge base)
    check_runners(app, chosen)
    start_shared_parts(app)
    serve_runners(app, chosen)


def check_runners(app: App, runners: Sequence[Runner]) -> None:
    """Every local check (each runner's settings and ports, the metrics port) before any
    network call; then each platform is asked about its tokens."""
    s = app.settings
    for runner in runners:
        runner.check(app)
    check_port_free(s.metrics_host, s.metrics_port, "RICORDA_METRICS_PORT")
    for runner in runners:
        runner.confirm(app)


def start_shared_parts(app: App) -> None:
    """What every platform shares: /healthz and /metrics (503 `warming` until the models and
    indexes are loaded), the startup summary and the nightly maintenance timer."""
    from bot.serve.health import start_health_server
    from bot.serve.maintenance_schedule import start_nightly
    from bot.serve.warmup import embedder_line, summary, warm

    ready = threading.Event()
    health = start_health_server(app, metrics=app.core.metrics, ready=ready)  # 503 warming
    for line in summary(app, thresholds=False, metrics_port=health.port):
        log.info("%s", line)
    warm(app)
    log.info("%s", embedder_line(app))  # now loaded, with its thresholds
    start_nightly(app)  # nightly at maintenance_time; replicas coordinate through the database
    from bot.serve.refresh import start_fact_refresh

    start_fact_refresh(app)  # declared SQL fact sources, every fact_refresh_minutes (0: off)
    ready.set()


def serve_runners(app: App, runners: Sequence[Runner]) -> None:
    """Serve every runner, all sharing one core worker (one core call at a time, but for a
    model's thinking: bot/serve/core_worker.py): the one that needs the main thread (else the last)
    here, owning the signals; the others on daemon threads."""
    from bot.serve.core_worker import CoreWorker
    from bot.serve.scheduler import start_scheduler

    *background, main = sorted(runners, key=lambda r: r.needs_main_thread)  # stable
    worker = CoreWorker(app.core.core_lock)
    start_scheduler(app, worker, [r.name for r in runners])  # subscriptions, on every replica
    for runner in background:
        threading.Thread(
            target=runner.serve, args=(app, worker, False), daemon=True,
            name=f"ricorda-{runner.name}",
        ).start()
    main.serve(app, worker, True)
