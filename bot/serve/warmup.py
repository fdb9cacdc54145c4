"""What `ricorda serve` does before it takes its first update: say what it serves, then load it.

`summary` is the startup report a deployer reads at INFO (on by default for serve): version,
platforms and modes, database (password masked), vector store, embedder and its thresholds,
LLM, ports. `warm` loads everything a first question would otherwise load (the embedder, the
L0 cosine indexes, the autopaths, the BM25 index and the vector store, the LLM, matplotlib for
charts), so the first answer after /healthz says ok costs what the hundredth does.
"""

from __future__ import annotations

import gc
import logging
import time
from typing import TYPE_CHECKING

from core.contracts.errors import RicordaError

if TYPE_CHECKING:
    from bot.wiring.build import App

log = logging.getLogger("ricorda.serve")


def mask_url(url: str) -> str:
    """A database URL with its password replaced by ***."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not parseable: print only its scheme
        return url.split("://", 1)[0] + "://…"


def platform_lines(app: App) -> list[str]:
    s = app.settings
    lines = []
    if s.telegram_token is not None:
        if s.telegram_webhook_url:
            port = s.telegram_webhook_port or "the URL's port"
            where = f"{s.telegram_webhook_listen}:{port}"
            mode = f"webhook {s.telegram_webhook_url} (listening on {where})"
        else:
            mode = "long polling"
        lines.append(f"telegram: {mode}")
    if s.slack_bot_token is not None:
        mode = (
            "Socket Mode"
            if s.slack_app_token is not None
            else f"HTTP events on {s.slack_host}:{s.slack_port}/slack/events"
        )
        lines.append(f"slack: {mode}")
    return lines


def summary(app: App, *, thresholds: bool = True, metrics_port: int | None = None) -> list[str]:
    """The startup report, one fact a line; no secret in it."""
    from bot.wiring.version import version

    s = app.settings
    lines = [f"ricorda {version()}", *platform_lines(app)]
    lines.append(f"database: {mask_url(s.database)}")
    lines.append(f"vector store: {s.chroma_url or f'embedded Chroma in {s.data_dir}'}")
    lines.append(embedder_line(app) if thresholds else f"embedder: {s.embedder.value} (loading)")
    llm = s.llm.value
    if s.llm.value == "llama-cpp":
        llm += f" ({s.llm_model_path})"
    elif s.llm.value == "openai":
        llm += f" ({s.llm_base_url}, model {s.llm_model})"
    lines.append(f"llm: {llm}")
    port = s.metrics_port if metrics_port is None else metrics_port
    lines.append(f"health and metrics: http://{s.metrics_host}:{port}/healthz and /metrics")
    lines.append(f"data dir: {s.data_dir}")
    return lines


def embedder_line(app: App) -> str:
    """The embedder in use and the thresholds it serves with (loads it)."""
    t = app.core.thresholds()
    return (
        f"embedder: {app.core.documents.embedder.name} "
        f"(RICORDA_EMBEDDER={app.settings.embedder.value}; "
        f"thresholds L0 {t.l0:.3f}, L1 cluster {t.cluster:.3f}, floor {t.floor:.3f})"
    )


def warm(app: App) -> dict[str, float]:
    """Load what the first question would; the time each part took, in ms."""
    timings: dict[str, float] = {}

    def step(name: str, action: object) -> None:
        started = time.perf_counter()
        action()  # type: ignore[operator]
        timings[name] = (time.perf_counter() - started) * 1000

    step("glossary and planner", lambda: app.core.pipeline)
    embedder = lambda: app.core.documents.embedder  # noqa: E731
    step("embedder", lambda: embedder().embed(["warm up", "riscaldamento", "预热"]))
    step("L0 index", app.storage.fastpaths.refresh)
    step("autopaths", lambda: app.core.autopaths.lookup)
    step("documents", lambda: _warm_documents(app))
    step("llm", lambda: app.core.llm)
    step("dry run", lambda: _dry_run(app))
    if app.settings.charts:
        step("charts", _warm_charts)
    step("freeze", _freeze_loaded)  # last: what the dry run loaded is frozen too
    log.info("ready: " + ", ".join(f"{k} {v:.0f} ms" for k, v in timings.items()))
    return timings


def _warm_charts() -> None:
    """matplotlib and the fonts, loaded on the chart thread (adapters.charts)."""
    from adapters.charts import warm_up

    try:
        warm_up()
    except Exception as exc:  # a chart is an extra: the bot serves without it
        log.warning("charts not warmed up (answers go out without them if drawing keeps "
                    "failing): %s: %s", exc.__class__.__name__, exc)


def _freeze_loaded() -> None:
    """What start-up loaded (facts, glossary, models, indexes) stays for the process's life:
    moved out of the collector's generations, a full collection no longer walks it on some
    unlucky answer (tens of milliseconds with 10,000 facts loaded, the serve-mode p99)."""
    gc.collect()
    gc.freeze()


def _warm_documents(app: App) -> None:
    """BM25 (and jieba's dictionary with it) and the vector store, when documents exist."""
    retriever = app.core.documents.narrative.retriever()
    if retriever is None:
        return
    try:
        app.core.documents.vector_index()
    except RicordaError as exc:  # keyword search answers meanwhile; the retriever retries
        log.warning("vector store not reachable yet (%s); answering from keywords until it is",
                    exc)


def _dry_run(app: App) -> None:
    """One question through every step of an answer, recording nothing: the first real one then
    finds the rules compiled, the statements prepared and the code paths warm (it took 16 ms
    after ready against 2 ms in the steady state before this)."""
    from core.contracts.types import Request
    from core.fastpath.canonical import cache_key
    from core.planning.answering import Prepared

    glossary = app.core.glossary
    metric = next(iter(glossary.metrics.values())).label
    entity = glossary.entities[glossary.default_entity].label
    answerer = app.core.pipeline.answerer
    prepared = answerer.prepare(Request(f"{metric} {entity} {app.core.today().year - 1}?",
                                        chat="warmup", user="warmup"))
    if not isinstance(prepared, Prepared):
        return  # refused or empty: nothing more to warm (a glossary an operator made odd)
    _, key = cache_key(prepared.text, prepared.language, {})
    app.storage.fastpaths.by_hash(key)  # the L0a read
    plan = answerer.plan(prepared)
    if plan is not None:
        answerer.run(plan, prepared)
    embedder = app.core.documents.embedder
    embedding = embedder.embed([prepared.text])[0]
    app.storage.fastpaths.nearest(embedding, embedder=embedder.name, k=3)  # the L0b read
