"""What people asked and could not get: the admin's report (`ricorda report`, the `report` admin
command), built from the turns table, the ✗ verdicts and the reasons given for them.

Platform-neutral and storage-free: the caller reads the turns (storage.turn_report_reader) and
says who is looking. Clearance applies to every row: a question asked from a chat cleared for
restricted data (the turn's `restricted` flag) shows its text, its note and its unknown words only
to a cleared viewer (a cleared admin chat, the CLI); elsewhere it is "(restricted question)" and
counts only.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.catalog.lookup import say
from core.contracts.ports import TurnRecord
from core.knowledge.clearance import shown_question

LEVELS = ("L0a", "L0b", "L1", "planner", "model")
OUTCOMES = (*LEVELS, "clarified", "not_understood", "refused", "no_figure")
REJECTED = "rejected"
RESTRICTED_NOTE = "(restricted note)"
SLOWEST = 5
UNKNOWN = 10

# the words left of a question once glossary names, periods and question words are out
# (core.question.no_figure.missing_subject, bound to the current glossary by the caller)
Subject = Callable[[str, dt.date, str], str]


@dataclass(frozen=True)
class ReportTurn:
    """One turn with what the report needs beside it: when, and the ✗ verdicts and reason."""

    turn: TurnRecord
    created_at: dt.datetime
    rejections: int = 0
    reason: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class RejectedRow:
    turn: str
    chat: str
    question: str
    reason: str
    note: str


@dataclass(frozen=True)
class UnknownRow:
    phrase: str
    count: int
    metric: str | None  # the metric people chose after being asked back, when they did


@dataclass(frozen=True)
class SlowRow:
    turn: str
    chat: str
    question: str
    served_by: str
    latency_ms: float


@dataclass(frozen=True)
class Report:
    since: dt.datetime | None
    questions: int
    outcomes: dict[str, int]
    rejected: list[RejectedRow] = field(default_factory=list)
    unknown: list[UnknownRow] = field(default_factory=list)
    slowest: list[SlowRow] = field(default_factory=list)
    per_chat: dict[str, dict[str, int]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["since"] = self.since.isoformat() if self.since else None
        return out


_SPAN = re.compile(r"(\d+)\s*([hdw])")
_UNITS = {"h": dt.timedelta(hours=1), "d": dt.timedelta(days=1), "w": dt.timedelta(weeks=1)}


def parse_since(text: str, now: dt.datetime) -> dt.datetime | None:
    """"7d", "24h", "2w" back from `now`, or a date ("2026-11-30", from its midnight UTC);
    "" or "all": every turn kept (None). ValueError names what was not understood."""
    text = text.strip().lower()
    if text in ("", "all"):
        return None
    span = _SPAN.fullmatch(text)
    if span:
        return now - int(span.group(1)) * _UNITS[span.group(2)]
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not a period: {text!r} (7d, 24h, 2w, a date YYYY-MM-DD or all)"
                         ) from None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


# answer lines that state no figure (the rest: a fact, a sum of the visible units, a derived
# figure... whatever the kind, something was stated)
_NOT_STATED = frozenset({"not_found", "notice", "assumed", "narrow", "message", "degraded"})


def outcome(turn: TurnRecord) -> str:
    """One of OUTCOMES: refused, asked back (with options), not understood (asked back with
    nothing to choose), no figure (a figure question without one), else the level that
    answered."""
    answer = turn.answer or {}
    if turn.route == "refused":
        return "refused"
    if turn.route in ("clarify", "unknown"):
        return "clarified" if turn.options else "not_understood"
    found = any(f.get("status") == "found" for f in answer.get("facts") or [])
    stated = any(line.get("kind") not in _NOT_STATED for line in answer.get("lines") or [])
    if turn.route == "narrative":
        shown = answer.get("passages") or answer.get("citations")
    else:
        shown = found or stated or answer.get("tables") or answer.get("passages")
    if not shown:
        return "no_figure"
    return turn.served_by if turn.served_by in LEVELS else "planner"


def build_report(turns: Sequence[ReportTurn], *, cleared: bool, since: dt.datetime | None,
                 subject: Subject | None = None) -> Report:
    """The report as `cleared` (the viewer's clearance) may see it."""
    outcomes: Counter[str] = Counter()
    per_chat: dict[str, Counter[str]] = {}
    by_id = {t.turn.id: t for t in turns}
    for t in turns:
        kind = outcome(t.turn)
        outcomes[kind] += 1
        chat = per_chat.setdefault(t.turn.chat, Counter())
        chat[kind] += 1
        if t.rejections:
            outcomes[REJECTED] += 1
            chat[REJECTED] += 1
    rejected = [
        RejectedRow(t.turn.id, t.turn.chat, _question(t, cleared), t.reason or "",
                    _note(t, cleared))
        for t in turns if t.rejections
    ]
    slowest = sorted(turns, key=lambda t: t.turn.latency_ms, reverse=True)[:SLOWEST]
    return Report(
        since=since,
        questions=len(turns),
        outcomes={k: outcomes[k] for k in (*OUTCOMES, REJECTED)},
        rejected=rejected,
        unknown=_unknown(turns, by_id, cleared, subject),
        slowest=[SlowRow(t.turn.id, t.turn.chat, _question(t, cleared), t.turn.served_by,
                         round(t.turn.latency_ms, 1)) for t in slowest],
        per_chat={chat: {k: c[k] for k in (*OUTCOMES, REJECTED) if c[k]}
                  for chat, c in sorted(per_chat.items())},
    )


def _question(t: ReportTurn, cleared: bool) -> str:
    return shown_question(t.turn.question, restricted=t.turn.restricted, cleared=cleared)


def _note(t: ReportTurn, cleared: bool) -> str:
    if not t.note:
        return ""
    return RESTRICTED_NOTE if t.turn.restricted and not cleared else t.note


def _unknown(turns: Iterable[ReportTurn], by_id: dict[str, ReportTurn], cleared: bool,
             subject: Subject | None) -> list[UnknownRow]:
    """The phrases people used that the glossary lacks (in questions asked back, not
    understood or without a figure), most frequent first, each with the metric chosen after
    it most often."""
    if subject is None:
        return []
    counts: Counter[str] = Counter()
    metrics: dict[str, Counter[str]] = {}
    children: dict[str, list[ReportTurn]] = {}
    for t in turns:
        if t.turn.parent_turn:
            children.setdefault(t.turn.parent_turn, []).append(t)
    for t in turns:
        if t.turn.restricted and not cleared:
            continue
        if outcome(t.turn) not in ("clarified", "not_understood", "no_figure"):
            continue
        day = _reference(t)
        phrase = subject(t.turn.question, day, t.turn.language).strip().casefold()
        if not phrase:
            continue
        counts[phrase] += 1
        for child in children.get(t.turn.id, []):
            metric = child.turn.fixed_slots.get("metric")
            if metric:
                metrics.setdefault(phrase, Counter())[metric] += 1
    return [UnknownRow(p, n, metrics[p].most_common(1)[0][0] if p in metrics else None)
            for p, n in counts.most_common(UNKNOWN)]


def _reference(t: ReportTurn) -> dt.date:
    if t.turn.reference_date:
        try:
            return dt.date.fromisoformat(t.turn.reference_date)
        except ValueError:
            pass
    return t.created_at.date()


def report_text(report: Report, language: str = "en") -> str:
    """The report as a chat or a terminal shows it: headings in the reader's language, rows
    of codes, counts and questions as they were asked."""
    lines = [say("report_head", language, n=report.questions,
                 since=report.since.strftime("%Y-%m-%d %H:%M") if report.since else "-")]
    if not report.questions:
        return lines[0]
    lines.append("")
    lines.append(say("report_outcomes", language))
    lines += [f"  {k:<15} {n:>6}" for k, n in report.outcomes.items() if n]
    if report.rejected:
        lines += ["", say("report_rejected", language)]
        for r in report.rejected:
            note = f" — {r.note}" if r.note else ""
            lines.append(f"  {r.turn}  {r.chat}  {r.reason or '-'}  {r.question}{note}")
    if report.unknown:
        lines += ["", say("report_unknown", language)]
        for u in report.unknown:
            if u.metric:
                hint = say("report_unknown_hint", language, phrase=u.phrase, n=u.count,
                           metric=u.metric, command=_add_name(u.metric, u.phrase))
            else:
                hint = say("report_unknown_plain", language, phrase=u.phrase, n=u.count)
            lines.append(f"  {hint}")
    lines += ["", say("report_slowest", language)]
    lines += [f"  {s.latency_ms:>9.1f} ms  {s.served_by:<8} {s.turn}  {s.chat}  {s.question}"
              for s in report.slowest]
    lines += ["", say("report_per_chat", language)]
    for chat, counts in report.per_chat.items():
        lines.append(f"  {chat}: " + ", ".join(f"{k} {n}" for k, n in counts.items()))
    return "\n".join(lines)


def _add_name(metric: str, phrase: str) -> str:
    quoted = phrase if re.fullmatch(r"[\w-]+", phrase) else f'"{phrase}"'
    return f"ricorda glossary add-name {metric} {quoted}"


CSV_COLUMNS = ("section", "key", "count", "turn", "chat", "question", "served_by",
               "latency_ms", "reason", "note", "metric")


def report_rows(report: Report) -> list[dict[str, object]]:
    """The report flat, one dict per CSV row (CSV_COLUMNS), every section tagged."""
    rows: list[dict[str, object]] = []
    for key, n in report.outcomes.items():
        rows.append({"section": "outcome", "key": key, "count": n})
    for chat, counts in report.per_chat.items():
        for key, n in counts.items():
            rows.append({"section": "chat", "key": key, "count": n, "chat": chat})
    for r in report.rejected:
        rows.append({"section": "rejected", "turn": r.turn, "chat": r.chat,
                     "question": r.question, "reason": r.reason, "note": r.note})
    for u in report.unknown:
        rows.append({"section": "unknown", "key": u.phrase, "count": u.count,
                     "metric": u.metric or ""})
    for s in report.slowest:
        rows.append({"section": "slowest", "turn": s.turn, "chat": s.chat,
                     "question": s.question, "served_by": s.served_by,
                     "latency_ms": s.latency_ms})
    return [{c: row.get(c, "") for c in CSV_COLUMNS} for row in rows]


EXPORT_COLUMNS = ("turn", "created_at", "chat", "user", "language", "question", "answer",
                  "outcome", "served_by", "latency_ms", "restricted", "rejections", "reason",
                  "note", "parent_turn")


def export_row(t: ReportTurn, *, cleared: bool) -> dict[str, object]:
    """One turn as `ricorda turns export` writes it; a question asked from a cleared chat
    keeps its text, answer and note only for a cleared reader."""
    hidden = t.turn.restricted and not cleared
    return {
        "turn": t.turn.id, "created_at": t.created_at.isoformat(), "chat": t.turn.chat,
        "user": t.turn.user, "language": t.turn.language,
        "question": _question(t, cleared) if hidden else t.turn.question,
        "answer": "" if hidden else t.turn.answer_text,
        "outcome": outcome(t.turn), "served_by": t.turn.served_by,
        "latency_ms": round(t.turn.latency_ms, 1), "restricted": t.turn.restricted,
        "rejections": t.rejections, "reason": t.reason or "", "note": _note(t, cleared),
        "parent_turn": t.turn.parent_turn or "",
    }
