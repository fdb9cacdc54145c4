"""Admin chat commands, platform-neutral: /fastpaths [n], /purge <id|all|text>, /autopaths,
/stats, and promotion: /proposals [all|executors], /approve <id> [name], /reject <id>,
/retire <name>. Telegram and Slack parse their own command syntax and call
`run_admin_command`."""

from __future__ import annotations

import logging
from typing import Protocol

log = logging.getLogger("ricorda.admin")

COMMANDS = ("fastpaths", "purge", "autopaths", "stats", "proposals", "approve", "reject", "retire")
_TEXT: dict[str, dict[str, str]] = {
    "fastpaths": {
        "en": "admin: list the cached plans, most used first",
        "it": "admin: elenca i piani memorizzati, i più usati prima",
        "zh": "管理员：列出缓存的计划，最常用的在前",
    },
    "purge": {
        "en": "admin: forget a cached plan (id, question text, or all: L0 and L1)",
        "it": "admin: dimentica un piano memorizzato (id, testo della domanda, o all: L0 e L1)",
        "zh": "管理员：删除一个缓存的计划（id、问题文本，或 all：L0 和 L1）",
    },
    "autopaths": {
        "en": "admin: show the L1 autopaths",
        "it": "admin: mostra gli autopath L1",
        "zh": "管理员：显示 L1 自动路径",
    },
    "stats": {
        "en": "admin: hit rate and latency per serving level",
        "it": "admin: percentuale di risposte e latenza per livello",
        "zh": "管理员：各服务层级的命中率和延迟",
    },
    "proposals": {
        "en": "admin: plans proposed for promotion to executors",
        "it": "admin: piani proposti per diventare esecutori",
        "zh": "管理员：提议升级为执行器的计划",
    },
    "approve": {
        "en": "admin: approve a proposal (id [name])",
        "it": "admin: approva una proposta (id [nome])",
        "zh": "管理员：批准一个提议（id [名称]）",
    },
    "reject": {
        "en": "admin: reject a proposal (id)",
        "it": "admin: rifiuta una proposta (id)",
        "zh": "管理员：拒绝一个提议（id）",
    },
    "retire": {
        "en": "admin: retire a composite executor (name)",
        "it": "admin: ritira un esecutore composito (nome)",
        "zh": "管理员：停用一个组合执行器（名称）",
    },
    "refusal": {
        "en": "Sorry, only ricorda admins can use /{name}.",
        "it": "Spiacente, solo gli amministratori di ricorda possono usare /{name}.",
        "zh": "抱歉，只有 ricorda 管理员可以使用 /{name}。",
    },
    "unknown": {
        "en": "unknown command /{name}",
        "it": "comando sconosciuto /{name}",
        "zh": "未知命令 /{name}",
    },
    "purge_all_prompt": {
        "en": "This forgets every cached plan: the L0 fast paths and the L1 autopaths, with the "
        "answers they were learned from. Anti-autopaths (plans blocked by feedback) and "
        "approved executors stay. Tap Confirm to purge them all.",
        "it": "Così dimentico ogni piano memorizzato: i percorsi rapidi L0 e gli autopath L1, "
        "con le risposte da cui li ho appresi. Gli anti-autopath (piani bloccati dal feedback) "
        "e gli esecutori approvati restano. Tocca Conferma per eliminarli tutti.",
        "zh": "这会清除所有缓存的计划：L0 快速路径和 L1 自动路径，以及学习它们所用的回答。"
        "反向自动路径（因反馈被阻止的计划）和已批准的执行器会保留。点击“确认”全部清除。",
    },
    # the headings of the listings (core/chat/admin.py); their rows are ids, counts and field names
    "no_fastpaths": {
        "en": "no fast paths yet", "it": "ancora nessun percorso rapido", "zh": "还没有快速路径"},
    "fastpaths_head": {
        "en": "{shown} fast paths (most used first) of {total}:",
        "it": "{shown} percorsi rapidi (i più usati prima) su {total}:",
        "zh": "快速路径 {shown} 条（最常用的在前），共 {total} 条：",
    },
    "autopaths_off": {
        "en": "autopaths are off (no embedder)",
        "it": "gli autopath sono disattivati (nessun embedder)",
        "zh": "自动路径未启用（没有嵌入模型）",
    },
    "autopaths_head": {
        "en": "autopaths (champion first per cluster):",
        "it": "autopath (per ogni cluster, prima il campione):",
        "zh": "自动路径（每个簇中最优的在前）：",
    },
    "anti_in_force": {
        "en": "anti-autopaths in force: {n}",
        "it": "anti-autopath in vigore: {n}",
        "zh": "生效中的反向自动路径：{n}",
    },
    "no_autopaths": {
        "en": "no autopaths yet", "it": "ancora nessun autopath", "zh": "还没有自动路径"},
    "stats_head": {
        "en": "serving levels over the last {n} turns:",
        "it": "livelli di risposta negli ultimi {n} turni:",
        "zh": "最近 {n} 轮的服务层级：",
    },
    "stats_stored": {
        "en": "fast paths stored: {n}",
        "it": "percorsi rapidi memorizzati: {n}",
        "zh": "已存储的快速路径：{n}",
    },
    "confirm": {"en": "Confirm", "it": "Conferma", "zh": "确认"},
    "cancel": {"en": "Cancel", "it": "Annulla", "zh": "取消"},
    "cancelled": {
        "en": "Nothing purged.", "it": "Non ho eliminato nulla.", "zh": "未清除任何内容。"},
}


def admin_text(key: str, language: str = "en", **values: object) -> str:
    """An admin command's sentence or description in `language` (English when missing).
    Listings stay as the admin operations write them: ids, counts and field names."""
    table = _TEXT[key]
    return (table.get(language) or table["en"]).format(**values)


DESCRIPTIONS = {name: admin_text(name) for name in COMMANDS}
REFUSAL = _TEXT["refusal"]["en"]
PURGE_ALL_PROMPT = admin_text("purge_all_prompt")
CONFIRM_LABEL, CANCEL_LABEL = admin_text("confirm"), admin_text("cancel")
CANCELLED = admin_text("cancelled")
MAX_LIST = 200


class AdminOps(Protocol):
    """`cleared`: whether the chat the reply is shown in is cleared for RESTRICTED data;
    `language`: the reader's, for the listings' headings."""

    def fastpaths_text(self, n: int = 20, *, cleared: bool = False,
                       language: str = "en") -> str: ...

    def purge(self, target: str) -> str: ...

    def autopaths_text(self, *, cleared: bool = False, language: str = "en") -> str: ...

    def stats_text(self, last_n: int = 500, *, cleared: bool = False,
                   language: str = "en") -> str: ...

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
    confirmed: bool = False, cleared: bool = False, language: str = "en",
) -> str:
    """The reply text for an admin command. Every attempt is logged: who, which command,
    whether it was allowed (arguments are not logged: they may quote a question verbatim).

    `cleared` is the clearance of the chat the reply appears in (an admin's own clearance does
    not matter: everyone in that chat reads the reply); questions asked from cleared chats are
    shown only there. `language` is the reader's, for the sentences around the listings."""
    log.info("admin command /%s by %s allowed=%s", name, user or "?", is_admin)
    if name not in COMMANDS:
        return admin_text("unknown", language, name=name)
    if not is_admin:
        log.warning("refused admin command /%s for non-admin %s", name, user or "?")
        return admin_text("refusal", language, name=name)
    args = args.strip()
    if name == "fastpaths":
        n = int(args) if args.isascii() and args.isdigit() else 20
        return admin.fastpaths_text(max(1, min(n, MAX_LIST)), cleared=cleared,
                                    language=language)
    if name == "purge":
        if needs_confirmation(name, args) and not confirmed:
            return admin_text("purge_all_prompt", language)
        return admin.purge(args)
    if name == "autopaths":
        return admin.autopaths_text(cleared=cleared, language=language)
    if name == "proposals":
        return admin.proposals_text(args, cleared=cleared)
    if name in ("approve", "reject", "retire"):
        return getattr(admin, name)(args, by=user)
    return admin.stats_text(cleared=cleared, language=language)
