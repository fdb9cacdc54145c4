"""Admin chat commands, platform-neutral: /fastpaths [n], /purge <id|all|text>, /autopaths,
/stats, and promotion: /proposals [all|executors], /approve <id> [name], /reject <id>,
/retire <name>. Telegram and Slack parse their own command syntax and call
`run_admin_command`."""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger("ricorda.admin")

COMMANDS = ("fastpaths", "purge", "autopaths", "stats", "proposals", "approve", "reject", "retire")
DESCRIPTIONS = {
    "fastpaths": "admin: list the cached plans, most used first",
    "purge": "admin: forget a cached plan (id, question text, or all: L0 and L1)",
    "autopaths": "admin: show the L1 autopaths",
    "stats": "admin: hit rate and latency per serving level",
    "proposals": "admin: plans proposed for promotion to executors",
    "approve": "admin: approve a proposal (id [name])",
    "reject": "admin: reject a proposal (id)",
    "retire": "admin: retire a composite executor (name)",
}
REFUSAL = "Sorry, only ricorda admins can use /{name}."
PURGE_ALL_PROMPT = (
    "This forgets every cached plan: the L0 fast paths and the L1 autopaths, with the answers "
    "they were learned from. Anti-autopaths (plans blocked by feedback) and approved executors "
    "stay. Tap Confirm to purge them all.")
CONFIRM_LABEL, CANCEL_LABEL = "Confirm", "Cancel"
CANCELLED = "Nothing purged."
MAX_LIST = 200


class AdminOps(Protocol):
    """`cleared`: whether the chat the reply is shown in is cleared for RESTRICTED data."""

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False) -> str: ...

    def purge(self, target: str) -> str: ...

    def autopaths_text(self, *, cleared: bool = False) -> str: ...

    def stats_text(self, last_n: int = 500, *, cleared: bool = False) -> str: ...

    def proposals_text(self, args: str = "", *, cleared: bool = False) -> str: ...

    def approve(self, args: str, *, by: str) -> str: ...

    def reject(self, args: str, *, by: str) -> str: ...

    def retire(self, args: str, *, by: str) -> str: ...


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
    confirmed: bool = False, cleared: bool = False,
) -> str:
    """The reply text for an admin command. Every attempt is logged: who, which command,
    whether it was allowed (arguments are not logged: they may quote a question verbatim).

    `cleared` is the clearance of the chat the reply appears in (an admin's own clearance does
    not matter: everyone in that chat reads the reply); questions asked from cleared chats are
    shown only there."""
    log.info("admin command /%s by %s allowed=%s", name, user or "?", is_admin)
    if name not in COMMANDS:
        return f"unknown command /{name}"
    if not is_admin:
        log.warning("refused admin command /%s for non-admin %s", name, user or "?")
        return REFUSAL.format(name=name)
    args = args.strip()
    if name == "fastpaths":
        n = int(args) if args.isascii() and args.isdigit() else 20
        return admin.fastpaths_text(max(1, min(n, MAX_LIST)), cleared=cleared)
    if name == "purge":
        if needs_confirmation(name, args) and not confirmed:
            return PURGE_ALL_PROMPT
        return admin.purge(args)
    if name == "autopaths":
        return admin.autopaths_text(cleared=cleared)
    if name == "proposals":
        return admin.proposals_text(args, cleared=cleared)
    if name in ("approve", "reject", "retire"):
        return getattr(admin, name)(args, by=user)
    return admin.stats_text(cleared=cleared)
