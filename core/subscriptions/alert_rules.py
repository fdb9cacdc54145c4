"""Alerts in plain words and their comparison, computed in code from the fact table.

`read_alert("when China revenue falls more than 10% month on month")` splits the condition
into its subject ("China revenue": read later by the question parser into a metric and an
entity) and its rule: falls or rises by more than a percentage month on month, or above or
below a threshold in the metric's unit. In English, Italian and Chinese.

`check(rule, facts)` compares the latest month with the one before (or the latest period with
the threshold) exactly, in Decimal, and says so with the figures and their sources.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from core.catalog.lookup import say
from core.contracts.subscriptions import AlertRecord
from core.contracts.types import Fact, Period, PeriodType

FALLS, RISES, ABOVE, BELOW = "falls", "rises", "above", "below"
_FINEST = (PeriodType.M, PeriodType.Q, PeriodType.HY, PeriodType.FY)

_NUMBER = r"(?P<n>\d+(?:[.,]\d+)?)"
_DIRECTION = {
    "falls": FALLS, "drops": FALLS, "declines": FALLS, "decreases": FALLS, "fall": FALLS,
    "rises": RISES, "grows": RISES, "increases": RISES, "rise": RISES, "goes up": RISES,
    "scende": FALLS, "cala": FALLS, "diminuisce": FALLS, "sale": RISES, "cresce": RISES,
    "aumenta": RISES, "下降": FALLS, "下跌": FALLS, "减少": FALLS, "上升": RISES, "上涨": RISES,
    "增长": RISES, "above": ABOVE, "over": ABOVE, "below": BELOW, "under": BELOW,
    "sopra": ABOVE, "sotto": BELOW, "高于": ABOVE, "低于": BELOW,
}
_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"^(?:when |if )?(?P<subject>.+?) (?P<dir>falls|drops|declines|decreases|rises|grows"
    rf"|increases|goes up) (?:by )?more than {_NUMBER} ?%(?: month on month| on the month "
    rf"before| m/?o/?m| from the month before)?$",
    rf"^(?:when |if )?(?P<subject>.+?) (?:is |goes |gets )?(?P<dir>above|over|below|under) "
    rf"{_NUMBER}$",
    rf"^(?:quando |se )?(?P<subject>.+?) (?P<dir>scende|cala|diminuisce|sale|cresce|aumenta) "
    rf"(?:di )?(?:oltre il|oltre|più del|più di|piu del|piu di) {_NUMBER} ?%(?: su base "
    rf"mensile| rispetto al mese (?:precedente|prima))?$",
    rf"^(?:quando |se )?(?P<subject>.+?) (?:è |va |scende |sale )?(?P<dir>sopra|sotto) "
    rf"(?:a |i |il )?{_NUMBER}$",
    rf"^(?:当)?(?P<subject>.+?)(?:环比)?(?P<dir>下降|下跌|减少|上升|上涨|增长)(?:超过|逾){_NUMBER}"
    rf"[%％](?:时)?$",
    rf"^(?:当)?(?P<subject>.+?)(?P<dir>高于|低于){_NUMBER}(?:时)?$",
))


class AlertError(ValueError):
    """The condition is not one the bot reads."""


@dataclass(frozen=True)
class AlertRule:
    subject: str  # "China revenue": what the question parser reads a metric and entity from
    kind: str  # FALLS | RISES | ABOVE | BELOW
    threshold: Decimal  # a percentage for FALLS/RISES, the metric's unit for ABOVE/BELOW


def read_alert(text: str) -> AlertRule:
    """The rule in `text`; AlertError when it is not one of the forms the bot reads."""
    folded = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().rstrip("?.!。？")
    for pattern in _PATTERNS:
        m = pattern.match(folded)
        if m is None:
            continue
        try:
            threshold = Decimal(m.group("n").replace(",", "."))
        except InvalidOperation:  # pragma: no cover - the pattern admits digits only
            raise AlertError(text) from None
        subject = m.group("subject").strip()
        if subject:
            return AlertRule(subject, _DIRECTION[m.group("dir").lower()], threshold)
    raise AlertError(text)


@dataclass(frozen=True)
class Check:
    """One evaluation: whether the condition holds, on which figures, and the change."""

    holds: bool
    latest: Fact
    previous: Fact | None = None
    change_pct: Decimal | None = None  # (latest - previous) / previous × 100, exact


def previous_month(period: Period) -> Period:
    year, month = int(period.value[:4]), int(period.value[5:7])
    year, month = (year - 1, 12) if month == 1 else (year, month - 1)
    return Period(PeriodType.M, f"{year:04d}-{month:02d}")


def check(rule: AlertRule, facts: list[Fact]) -> Check | None:
    """The rule over the facts of one metric, entity and channel (any periods); None when the
    figures it needs are not there (no month, or not the month before it, or a zero base)."""
    if rule.kind in (FALLS, RISES):
        months = {f.period: f for f in facts if f.period.type is PeriodType.M}
        if not months:
            return None
        latest = months[max(months)]
        previous = months.get(previous_month(latest.period))
        if previous is None or previous.value == 0:
            return None
        change = (latest.value - previous.value) / abs(previous.value) * 100
        holds = change < -rule.threshold if rule.kind == FALLS else change > rule.threshold
        return Check(holds, latest, previous, change)
    for kind in _FINEST:  # the latest figure of the finest grain there is
        of_kind = [f for f in facts if f.period.type is kind]
        if of_kind:
            latest = max(of_kind, key=lambda f: f.period)
            holds = latest.value > rule.threshold if rule.kind == ABOVE else (
                latest.value < rule.threshold)
            return Check(holds, latest)
    return None


def check_alert(alert: AlertRecord, facts: list[Fact]) -> Check | None:
    """A stored alert's rule over the facts it reads."""
    return check(AlertRule("", alert.kind, Decimal(alert.threshold)), facts)


def figure(fact: Fact) -> str:
    """The fact table's value exactly as loaded, with its unit and period."""
    return f"{fact.value:f} {fact.unit} ({fact.period.label})"


def source(fact: Fact) -> str:
    return f"{fact.source.doc}{', ' + fact.source.locator if fact.source.locator else ''}"


def comparison(check: Check, language: str) -> str:
    """"2026-02: 100 USD_M against 2026-01: 120 USD_M, −16.67% (sources: …)"."""
    if check.previous is not None and check.change_pct is not None:
        change = check.change_pct.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
        return say("alert_change", language, latest=figure(check.latest),
                   previous=figure(check.previous), change=f"{change:+f}%",
                   sources=f"{source(check.latest)}; {source(check.previous)}")
    return say("alert_level", language, latest=figure(check.latest),
               sources=source(check.latest))
