"""Admin chat commands, platform-neutral: /fastpaths [n], /purge <id|all|text>, /autopaths,
/stats, and promotion: /proposals [all|executors], /approve <id> [name], /reject <id>,
/retire <name>, /report [7d] (core.chat.turn_report), /verify <id|turn|question>. Telegram
and Slack parse their own command syntax and call `run_admin_command`."""

from __future__ import annotations

import logging
from typing import Protocol

from core.catalog.lookup import say

log = logging.getLogger("ricorda.admin")

COMMANDS = ("fastpaths", "purge", "autopaths", "stats", "proposals", "approve", "reject", "retire",
            "report", "verify")


def description(name: str, language: str = "en") -> str:
    """What admin command `name` does, for a platform's command menu or help."""
    return say(f"command_{name}", language)


MAX_LIST = 200


class AdminOps(Protocol):
    """`cleared`: whether the chat the reply is shown in is cleared for RESTRICTED data;
    `language`: the reader's, for every sentence of a reply (rows of ids and counts stay)."""

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False,
                       language: str = "en") -> str: ...

    def purge(self, target: str, *, language: str = "en") -> str: ...

    def autopaths_text(self, *, cleared: bool = False, language: str = "en") -> str: ...

    def stats_text(self, last_n: int = 500, *, cleared: bool = False,
                   language: str = "en") -> str: ...

    def proposals_text(self, args: str = "", *, cleared: bool = False,
                       language: str = "en") -> str: ...

    def approve(self, args: str, *, by: str, language: str = "en") -> str: ...

    def reject(self, args: str, *, by: str, language: str = "en") -> str: ...

    def retire(self, args: str, *, by: str, language: str = "en") -> str: ...

    def report_text(self, args: str = "", *, cleared: bool = False,
                    language: str = "en") -> str: ...

    def verify(self, target: str, *, cleared: bool = False, language: str = "en") -> str: ...


def is_admin(user: str, admins: list[str] | tuple[str, ...] | frozenset[str]) -> bool:
    """`user` is a platform-qualified id ("telegram:123"), as RICORDA_ADMINS lists them."""
    return bool(user) and user in admins


def needs_confirmation(name: str, args: str) -> bool:
    """Purging everything is the one command that asks before it acts."""
    return name == "purge" and args.strip().lower() == "all"


def confirmation_id(platform: str, user: str, issued: str) -> str:
    """Names one purge prompt (its Confirm and Cancel share it): the first tap on either
    answers it, and every later tap, replayed or not, is refused."""
    return f"{platform}:{user}:{issued}"


def run_admin_command(
    admin: AdminOps, name: str, args: str, *, user: str, is_admin: bool,
    confirmed: bool = False, cleared: bool = False, language: str = "en",
) -> str:
    """The reply text for an admin command. Every attempt is logged: who, which command,
    whether it was allowed (arguments are not logged: they may quote a question verbatim).

    `cleared` is the clearance of the chat the reply appears in (an admin's own clearance does
    not matter: everyone in that chat reads the reply); questions asked from cleared chats are
    shown only there. `language` is the reader's: every sentence of the reply is in it."""
    log.info("admin command /%s by %s allowed=%s", name, user or "?", is_admin)
    if name not in COMMANDS:
        return say("admin_unknown", language, name=name)
    if not is_admin:
        log.warning("refused admin command /%s for non-admin %s", name, user or "?")
        return say("admin_refusal", language, name=name)
    args = args.strip()
    if name == "fastpaths":
        n = int(args) if args.isascii() and args.isdigit() else 20
        return admin.fastpaths_text(max(1, min(n, MAX_LIST)), cleared=cleared,
                                    language=language)
    if name == "purge":
        if needs_confirmation(name, args) and not confirmed:
            return say("purge_all_prompt", language)
        return admin.purge(args, language=language)
    if name == "autopaths":
        return admin.autopaths_text(cleared=cleared, language=language)
    if name == "proposals":
        return admin.proposals_text(args, cleared=cleared, language=language)
    if name == "verify":
        return admin.verify(args, cleared=cleared, language=language)
    if name == "report":
        return admin.report_text(args, cleared=cleared, language=language)
    if name in ("approve", "reject", "retire"):
        decide = {"approve": admin.approve, "reject": admin.reject, "retire": admin.retire}[name]
        return decide(args, by=user, language=language)
    return admin.stats_text(cleared=cleared, language=language)
