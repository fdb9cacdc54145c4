"""What alerts need from the application: an alert's subject read by the question parser, an
alert checked against the fact table as it is now, and the facts' version (an ingest bumps it).
Clearance is the alert's chat's, read each time: a chat that lost it is told nothing more."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.wiring.build import App
    from core.contracts.subscriptions import AlertRecord
    from core.subscriptions.alert_rules import Check

MAX_PERIODS = 400  # an alert reads the latest months of one series: bounded


def subject_reader(app: App) -> Callable[[str, str], tuple[str, str, str] | None]:
    def read(subject: str, chat: str) -> tuple[str, str, str] | None:
        app.core.answering.ensure_fresh()
        glossary = app.core.glossary
        answerer = app.core.answerer
        cleared = glossary.is_cleared(chat)
        verdict = answerer.gate.check(subject, cleared=cleared)
        if not verdict.allowed:
            return None
        intent = answerer.parser.parse(verdict.text, app.core.today())
        if len(intent.metrics) != 1 or len(intent.entities) > 1 or len(intent.channels) > 1:
            return None
        entity = intent.entities[0] if intent.entities else glossary.default_entity
        term = glossary.entities.get(entity)
        if term is None or (term.restricted and not cleared):
            return None
        return intent.metrics[0], entity, intent.channels[0] if intent.channels else "TOTAL"

    return read


def alert_evaluator(app: App) -> Callable[[AlertRecord], Check | None]:
    def evaluate(alert: AlertRecord) -> Check | None:
        from core.subscriptions.alert_rules import check_alert

        app.core.answering.ensure_fresh(force=True)
        glossary = app.core.glossary
        term = glossary.entities.get(alert.entity)
        if term is None or alert.metric not in glossary.metrics or (
                term.restricted and not glossary.is_cleared(alert.chat)):
            return None  # gone from the glossary, or no longer the chat's to see
        facts = app.storage.facts
        periods = sorted(facts.periods(alert.metric, alert.entity, alert.channel))[-MAX_PERIODS:]
        found = [facts.lookup(alert.metric, alert.entity, p, alert.channel) for p in periods]
        return check_alert(alert, [f for f in found if f is not None])

    return evaluate


def facts_version(app: App) -> Callable[[], object]:
    """The knowledge base's version (facts and glossary): it moves with every ingest."""
    from storage.kb_version import FACTS, GLOSSARY, read_part

    engine = app.storage.engine

    def read() -> object:
        with engine.connect() as conn:
            return read_part(conn, FACTS)[0], read_part(conn, GLOSSARY)[0]

    return read
