"""Admin operations on the learned fast paths, platform-neutral: the CLI, Telegram and Slack
admin commands all call this and print its text."""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.catalog.lookup import LANGUAGES, say
from core.chat.turn_report import Report, parse_since, report_text
from core.contracts.deferred import Deferred, deferred
from core.contracts.fastpath import FastpathEntry
from core.contracts.learning_ports import FastpathStore
from core.contracts.ports import RecentTurns as RecentTurns  # declared with every storage port
from core.fastpath.autopath_score import autopath_score
from core.fastpath.canonical import canonical_hash, canonical_text
from core.fastpath.verified import verify
from core.knowledge.clearance import shown_question
from core.language import detect_language

if TYPE_CHECKING:
    from core.fastpath.autopath import Autopaths
    from core.nightly.promotion import Promotions

LEVELS = ("L0a", "L0b", "L1", "planner", "model")


@dataclass(frozen=True)
class LevelStats:
    level: str
    turns: int
    share: float
    p50_ms: float | None


class Admin:
    def __init__(
        self,
        *,
        fastpaths: FastpathStore,
        turns: RecentTurns,
        autopaths: Autopaths | Deferred[Autopaths] | None = None,
        promotions: Promotions | Deferred[Promotions] | None = None,
        sync: Callable[[], None] | None = None,
        report: Callable[[dt.datetime | None, bool], Report] | None = None,
    ) -> None:
        """`sync` is called before every read or purge: it writes what the serving cascade
        still has queued (core.fastpath.learning), so a listing is never behind the answers
        given. `autopaths` and `promotions` may be handed built or as a `Deferred`, built by
        the first command that reads them. `report` reads the turns since a moment as a viewer
        of that clearance may see them (core.chat.turn_report)."""
        self._sync = sync or (lambda: None)
        self.fastpaths = fastpaths
        self.turns = turns
        self.autopaths = deferred(autopaths)
        self.promotions = deferred(promotions)
        self._report = report

    def list_fastpaths(self, n: int = 20) -> list[FastpathEntry]:
        """Most used first."""
        self._sync()
        return self.fastpaths.list(limit=max(1, min(n, 500)))

    def purge(self, target: str, *, language: str = "en") -> str:
        """`all`, an entry id, or the question text (any wording that normalises the same);
        the reply in `language`."""
        target = target.strip()
        self._sync()  # a queued registration must not bring a purged plan back
        if not target:
            return say("purge_what", language)
        if target.lower() == "all":
            return self._purge_all(language)
        if self.fastpaths.by_id(target) is not None and self.fastpaths.delete(target):
            return say("purged_id", language, id=target)
        first = detect_language(target)
        for code in dict.fromkeys((first, *LANGUAGES)):
            if self.fastpaths.delete_by_hash(canonical_hash(canonical_text(target, code))):
                return say("purged_question", language, question=target)
        return say("purge_no_match", language, target=repr(target))

    def _purge_all(self, language: str) -> str:
        """Every cached plan: L0 fast paths and L1 autopaths (with the observations they are
        learned from). What stays is named: anti-autopaths and approved executors."""
        n = self.fastpaths.purge_all()
        if self.autopaths is None:
            return say("purged_all", language, n=n)
        paths, observations = self.autopaths.get().purge_plans()
        kept = len(self.autopaths.get().anti_autopaths())
        return say("purged_all_autopaths", language, n=n, paths=paths,
                   observations=observations, kept=kept)

    def stats(self, last_n: int = 500) -> list[LevelStats]:
        """Hit rate and p50 latency per serving level over the last N answered turns."""
        self._sync()
        turns = [t for t in self.turns.recent_turns(last_n) if t.served_by in LEVELS]
        total = len(turns) or 1
        out = []
        for level in LEVELS:
            latencies = [t.latency_ms for t in turns if t.served_by == level]
            out.append(
                LevelStats(
                    level,
                    len(latencies),
                    len(latencies) / total,
                    statistics.median(latencies) if latencies else None,
                )
            )
        return out

    # -- text shared by every admin surface -----------------------------------------------

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False,
                       language: str = "en") -> str:
        """The listing for a viewer; `cleared` is the viewing chat's clearance (the CLI is
        cleared). A question asked from a cleared chat shows as "(restricted question)" elsewhere,
        with its id and counts, so an admin can still purge it by id."""
        entries = self.list_fastpaths(n)
        if not entries:
            return say("no_fastpaths", language)
        lines = [say("fastpaths_head", language, shown=len(entries),
                            total=self.fastpaths.count())]
        for e in entries:
            lines.append(
                f"{e.id[:12]}  uses={e.n_uses:<4} {e.origin:<8} "
                f"last={e.last_used_at:%Y-%m-%d %H:%M}  "
                + shown_question(e.canonical_text, restricted=e.restricted, cleared=cleared)
            )
        return "\n".join(lines)

    def autopaths_text(self, *, cleared: bool = False, language: str = "en") -> str:
        """Clusters, scores and intent hashes: no question text, the same for every viewer."""
        if self.autopaths is None:
            return say("autopaths_off", language)
        self._sync()
        lines = [say("autopaths_head", language)]
        for a in self.autopaths.get().autopaths():
            lines.append(
                f"#{a.id} cluster={a.cluster_id} {a.status} score={autopath_score(a):.2f} "
                f"ok={a.confirmations} fail={a.failures} uses={a.uses} {a.intent_hash}"
            )
        anti = self.autopaths.get().anti_autopaths()
        lines.append(say("anti_in_force", language, n=len(anti)))
        for b in anti:
            lines.append(
                f"  cluster={b.cluster_id} framework={b.framework_hash} "
                f"failures={b.failures} until {b.blocked_until:%Y-%m-%d}"
            )
        return "\n".join(lines) if len(lines) > 2 or anti else say(
            "no_autopaths", language)

    def stats_text(self, last_n: int = 500, *, cleared: bool = False,
                   language: str = "en") -> str:
        """Counts and latencies only: no question text, the same for every viewer."""
        lines = [say("stats_head", language, n=last_n)]
        for s in self.stats(last_n):
            p50 = "-" if s.p50_ms is None else f"{s.p50_ms:.2f} ms"
            lines.append(f"{s.level:<8} {s.turns:>6} turns {s.share:>6.1%}  p50 {p50}")
        lines.append(say("stats_stored", language, n=self.fastpaths.count()))
        return "\n".join(lines)

    def verify(self, target: str, *, cleared: bool = False, language: str = "en") -> str:
        """Mark a cached answer verified (core.fastpath.verified): its entry id, the turn id
        of an answer, or the question."""
        target = target.strip()
        if not target:
            return say("verify_which", language)
        self._sync()
        get_turn = getattr(self.turns, "get_turn", None)
        turn = get_turn(target) if get_turn is not None else None
        entry = verify(self.fastpaths, target, turn)
        if entry is None:
            return say("verify_no_match", language, target=repr(target))
        return say("verified_done", language, question=shown_question(
            entry.canonical_text, restricted=entry.restricted, cleared=cleared))

    def report_text(self, args: str = "", *, cleared: bool = False,
                    language: str = "en") -> str:
        """What people asked and could not get since `args` (7d by default), as the chat it is
        shown in may see it: questions asked from cleared chats only in a cleared one."""
        if self._report is None:
            return say("report_off", language)
        try:
            since = parse_since(args or "7d", dt.datetime.now(dt.UTC))
        except ValueError:
            return say("report_since", language)
        self._sync()
        return report_text(self._report(since, cleared), language)

    # -- promotion proposals and composite executors (design 4.4) -------------------------

    def proposals_text(self, args: str = "", *, cleared: bool = False,
                       language: str = "en") -> str:
        """Pending proposals; `all` lists decided ones too, `executors` the approved macros."""
        if self.promotions is None:
            return say("promotion_off", language)
        which = args.strip().lower()
        if which == "executors":
            return self.promotions.get().executors_text(language)
        return self.promotions.get().proposals_text(
            None if which == "all" else "pending", cleared=cleared, language=language
        )

    def approve(self, args: str, *, by: str, language: str = "en") -> str:
        """`<id> [name]`: register the proposal's macro under `name` (or a derived name)."""
        if self.promotions is None:
            return say("promotion_off", language)
        proposal_id, rest = _proposal_id(args)
        if proposal_id is None:
            return say("approve_which", language)
        return self.promotions.get().approve(
            proposal_id, by=by, name=rest or None, language=language
        )

    def reject(self, args: str, *, by: str, language: str = "en") -> str:
        if self.promotions is None:
            return say("promotion_off", language)
        proposal_id, _ = _proposal_id(args)
        if proposal_id is None:
            return say("reject_which", language)
        return self.promotions.get().reject(proposal_id, by=by, language=language)

    def retire(self, args: str, *, by: str, language: str = "en") -> str:
        if self.promotions is None:
            return say("promotion_off", language)
        name = args.strip()
        if not name:
            return say("retire_which", language)
        return self.promotions.get().retire(name, by=by, language=language)


def _proposal_id(args: str) -> tuple[int | None, str]:
    head, _, rest = args.strip().lstrip("#").partition(" ")
    if not (head.isascii() and head.isdigit()):
        return None, ""
    return int(head), rest.strip()
