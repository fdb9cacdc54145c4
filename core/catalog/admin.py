"""Sentences of the admin commands: their descriptions (`command_<name>`), refusals, the
purge confirmation, the headings of the listings and the replies of purge and promotion."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "command_fastpaths": {
        "en": "admin: list the cached plans, most used first",
        "it": "admin: elenca i piani memorizzati, i più usati prima",
        "zh": "管理员：列出缓存的计划，最常用的在前",
    },
    "command_purge": {
        "en": "admin: forget a cached plan (id, question text, or all: L0 and L1)",
        "it": "admin: dimentica un piano memorizzato (id, testo della domanda, o all: L0 e L1)",
        "zh": "管理员：删除一个缓存的计划（id、问题文本，或 all：L0 和 L1）",
    },
    "command_autopaths": {
        "en": "admin: show the L1 autopaths",
        "it": "admin: mostra gli autopath L1",
        "zh": "管理员：显示 L1 自动路径",
    },
    "command_stats": {
        "en": "admin: hit rate and latency per serving level",
        "it": "admin: percentuale di risposte e latenza per livello",
        "zh": "管理员：各服务层级的命中率和延迟",
    },
    "command_proposals": {
        "en": "admin: plans proposed for promotion to executors",
        "it": "admin: piani proposti per diventare esecutori",
        "zh": "管理员：提议升级为执行器的计划",
    },
    "command_approve": {
        "en": "admin: approve a proposal (id [name])",
        "it": "admin: approva una proposta (id [nome])",
        "zh": "管理员：批准一个提议（id [名称]）",
    },
    "command_reject": {
        "en": "admin: reject a proposal (id)",
        "it": "admin: rifiuta una proposta (id)",
        "zh": "管理员：拒绝一个提议（id）",
    },
    "command_retire": {
        "en": "admin: retire a composite executor (name)",
        "it": "admin: ritira un esecutore composito (nome)",
        "zh": "管理员：停用一个组合执行器（名称）",
    },
    "admin_refusal": {
        "en": "Sorry, only ricorda admins can use /{name}.",
        "it": "Spiacente, solo gli amministratori di ricorda possono usare /{name}.",
        "zh": "抱歉，只有 ricorda 管理员可以使用 /{name}。",
    },
    "admin_unknown": {
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
    "purge_confirm": {"en": "Confirm", "it": "Conferma", "zh": "确认"},
    "purge_cancel": {"en": "Cancel", "it": "Annulla", "zh": "取消"},
    "purge_cancelled": {
        "en": "Nothing purged.", "it": "Non ho eliminato nulla.", "zh": "未清除任何内容。"},
    # the replies of purge and of the promotion commands (core/chat/admin.py)
    "purge_what": {
        "en": "purge what? give an id, the question text, or 'all'",
        "it": "cosa devo eliminare? indica un id, il testo della domanda, o 'all'",
        "zh": "要清除什么？请给出 id、问题文本或 'all'",
    },
    "purged_id": {
        "en": "purged fast path {id}",
        "it": "eliminato il percorso rapido {id}",
        "zh": "已清除快速路径 {id}",
    },
    "purged_question": {
        "en": "purged the fast path for: {question}",
        "it": "eliminato il percorso rapido per: {question}",
        "zh": "已清除以下问题的快速路径：{question}",
    },
    "purge_no_match": {
        "en": "no fast path matches {target}",
        "it": "nessun percorso rapido corrisponde a {target}",
        "zh": "没有与 {target} 匹配的快速路径",
    },
    "purged_all": {
        "en": "purged {n} fast paths (L0)",
        "it": "eliminati {n} percorsi rapidi (L0)",
        "zh": "已清除 {n} 条快速路径（L0）",
    },
    "purged_all_autopaths": {
        "en": "purged {n} fast paths (L0) and {paths} autopaths (L1, learned from {observations} "
        "answers); kept: {kept} anti-autopaths (plans blocked by feedback) and the approved "
        "executors",
        "it": "eliminati {n} percorsi rapidi (L0) e {paths} autopath (L1, appresi da "
        "{observations} risposte); restano: {kept} anti-autopath (piani bloccati dal feedback) "
        "e gli esecutori approvati",
        "zh": "已清除 {n} 条快速路径（L0）和 {paths} 条自动路径（L1，学习自 {observations} 个"
        "回答）；保留：{kept} 条反向自动路径（因反馈被阻止的计划）和已批准的执行器",
    },
    "promotion_off": {
        "en": "promotion is not set up in this process",
        "it": "la promozione non è attiva in questo processo",
        "zh": "此进程未启用计划升级",
    },
    "approve_which": {
        "en": "approve which proposal? give its number, e.g. approve 3",
        "it": "quale proposta approvo? indica il numero, per esempio approve 3",
        "zh": "要批准哪个提议？请给出编号，例如 approve 3",
    },
    "reject_which": {
        "en": "reject which proposal? give its number, e.g. reject 3",
        "it": "quale proposta rifiuto? indica il numero, per esempio reject 3",
        "zh": "要拒绝哪个提议？请给出编号，例如 reject 3",
    },
    "retire_which": {
        "en": "retire which executor? give its name (see proposals executors)",
        "it": "quale esecutore ritiro? indica il nome (vedi proposals executors)",
        "zh": "要停用哪个执行器？请给出名称（见 proposals executors）",
    },
    # the promotion store's replies (core/nightly/promotion.py); a listing's rows stay as
    # they are (ids, statuses, tools, counts)
    "no_proposal": {
        "en": "no proposal #{id}",
        "it": "nessuna proposta #{id}",
        "zh": "没有提议 #{id}",
    },
    "proposal_already": {
        "en": "proposal #{id} is already {status}",
        "it": "la proposta #{id} è già {status}",
        "zh": "提议 #{id} 已是 {status} 状态",
    },
    "proposal_meanwhile": {
        "en": "proposal #{id} was decided meanwhile",
        "it": "la proposta #{id} è stata decisa nel frattempo",
        "zh": "提议 #{id} 已在此期间被处理",
    },
    "proposal_rejected": {
        "en": "rejected proposal #{id} ({intent}); it will not be proposed again",
        "it": "proposta #{id} rifiutata ({intent}); non sarà più proposta",
        "zh": "已拒绝提议 #{id}（{intent}）；以后不会再提议",
    },
    "proposal_approved": {
        "en": "approved proposal #{id}: executor {name} now answers {intent} requests ({n} "
        "cached plans it replaces go at the next maintenance)",
        "it": "proposta #{id} approvata: l'esecutore {name} ora risponde alle richieste "
        "{intent} (i {n} piani memorizzati che sostituisce vanno via alla prossima "
        "manutenzione)",
        "zh": "已批准提议 #{id}：执行器 {name} 现在回答 {intent} 请求（它取代的 {n} 个缓存计划"
        "将在下次维护时删除）",
    },
    "executor_name_invalid": {
        "en": "{name} is not a valid executor name (a-z, 0-9, _; 3-64 characters)",
        "it": "{name} non è un nome valido per un esecutore (a-z, 0-9, _; 3-64 caratteri)",
        "zh": "{name} 不是有效的执行器名称（a-z、0-9、_；3-64 个字符）",
    },
    "executor_exists": {
        "en": "an executor named {name} exists already: choose another name",
        "it": "esiste già un esecutore di nome {name}: scegli un altro nome",
        "zh": "已存在名为 {name} 的执行器：请换一个名称",
    },
    "no_executor": {
        "en": "no composite executor named {name}",
        "it": "nessun esecutore composito di nome {name}",
        "zh": "没有名为 {name} 的组合执行器",
    },
    "executor_already": {
        "en": "executor {name} is already {status}",
        "it": "l'esecutore {name} è già {status}",
        "zh": "执行器 {name} 已是 {status} 状态",
    },
    "executor_retired": {
        "en": "retired executor {name}: requests are planned step by step again, and cached "
        "plans naming it are removed by the next maintenance",
        "it": "esecutore {name} ritirato: le richieste sono di nuovo pianificate passo per passo, "
        "e i piani memorizzati che lo nominano vanno via alla prossima manutenzione",
        "zh": "已停用执行器 {name}：请求重新逐步规划，引用它的缓存计划将在下次维护时删除",
    },
    "no_pending_proposals": {
        "en": "no pending proposals", "it": "nessuna proposta in attesa", "zh": "没有待处理的提议"},
    "no_proposals": {"en": "no proposals", "it": "nessuna proposta", "zh": "没有提议"},
    "proposals_head": {
        "en": "{n} proposal(s):", "it": "{n} proposta/e:", "zh": "{n} 个提议："},
    "proposals_hint": {
        "en": "approve <id> [name] or reject <id>",
        "it": "approve <id> [nome] oppure reject <id>",
        "zh": "approve <id> [名称] 或 reject <id>",
    },
    "no_executors": {
        "en": "no composite executors", "it": "nessun esecutore composito", "zh": "没有组合执行器"},
    "executors_head": {
        "en": "composite executors:", "it": "esecutori compositi:", "zh": "组合执行器："},
}
