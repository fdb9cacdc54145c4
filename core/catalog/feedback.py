"""Sentences of the feedback-reason flow (core.chat.feedback_reasons) and the admin's report
(core.chat.report_text)."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "reason_ask": {
        "en": "Sorry about that. What was wrong?",
        "it": "Mi dispiace. Che cosa non andava?",
        "zh": "抱歉。哪里不对？",
    },
    "reason_figure": {"en": "Wrong figure", "it": "Cifra sbagliata", "zh": "数字错误"},
    "reason_period": {"en": "Wrong period", "it": "Periodo sbagliato", "zh": "期间错误"},
    "reason_unit": {
        "en": "Wrong unit or entity", "it": "Società o unità sbagliata", "zh": "单位或实体错误"},
    "reason_understood": {
        "en": "Didn't understand me", "it": "Non mi ha capito", "zh": "没理解我的问题"},
    "reason_other": {"en": "Something else", "it": "Altro", "zh": "其他"},
    "reason_skip": {"en": "Nothing to add", "it": "Niente da aggiungere", "zh": "没有补充"},
    "reason_noted": {
        "en": "Noted: {reason}.", "it": "Annotato: {reason}.", "zh": "已记录：{reason}。"},
    "reason_more": {
        "en": "Anything to add? Your next message here, within {minutes} minutes, goes to the "
        "admins as a note.",
        "it": "Vuoi aggiungere qualcosa? Il tuo prossimo messaggio qui, entro {minutes} minuti, "
        "arriva agli amministratori come nota.",
        "zh": "还有补充吗？{minutes} 分钟内您在这里发送的下一条消息将作为备注转给管理员。",
    },
    "reason_thanks": {
        "en": "Thank you: the admins will see it.",
        "it": "Grazie: gli amministratori lo vedranno.",
        "zh": "谢谢：管理员会看到。",
    },
    "report_head": {
        "en": "{n} question(s) since {since}",
        "it": "{n} domanda/e dal {since}",
        "zh": "自 {since} 以来共 {n} 个问题",
    },
    "report_outcomes": {"en": "by outcome:", "it": "per esito:", "zh": "按结果："},
    "report_rejected": {
        "en": "rejected with ✗ (turn, chat, reason, question — note):",
        "it": "respinte con ✗ (turno, chat, motivo, domanda — nota):",
        "zh": "被标记为 ✗ 的回答（轮次、聊天、原因、问题 — 备注）：",
    },
    "report_unknown": {
        "en": "words the glossary lacks:", "it": "parole che il glossario non conosce:",
        "zh": "词汇表缺少的词：",
    },
    "report_unknown_hint": {
        "en": "'{phrase}' appeared {n} time(s) in questions about {metric}: add it to "
        "metrics.{metric}.names? {command}",
        "it": "'{phrase}' è comparso {n} volta/e in domande su {metric}: aggiungerlo a "
        "metrics.{metric}.names? {command}",
        "zh": "“{phrase}”在关于 {metric} 的问题中出现 {n} 次：加入 metrics.{metric}.names？"
        "{command}",
    },
    "report_unknown_plain": {
        "en": "'{phrase}' appeared {n} time(s): a name for a metric? "
        "ricorda glossary add-name METRIC \"{phrase}\"",
        "it": "'{phrase}' è comparso {n} volta/e: un nome per una metrica? "
        "ricorda glossary add-name METRICA \"{phrase}\"",
        "zh": "“{phrase}”出现 {n} 次：是某个指标的名称吗？"
        "ricorda glossary add-name 指标 \"{phrase}\"",
    },
    "report_slowest": {"en": "slowest answers:", "it": "risposte più lente:", "zh": "最慢的回答："},
    "report_per_chat": {"en": "per chat:", "it": "per chat:", "zh": "按聊天："},
    "command_report": {
        "en": "what people asked and could not get: report [7d]",
        "it": "cosa è stato chiesto e non ottenuto: report [7d]",
        "zh": "用户问了什么、没得到什么：report [7d]",
    },
    "report_off": {
        "en": "the report is not available here", "it": "il rapporto non è disponibile qui",
        "zh": "此处无法查看报告"},
    "report_since": {
        "en": "how far back? report 7d, report 24h, report 2026-11-30 or report all",
        "it": "da quando? report 7d, report 24h, report 2026-11-30 oppure report all",
        "zh": "从何时起？report 7d、report 24h、report 2026-11-30 或 report all",
    },
    "command_verify": {
        "en": "mark a cached answer verified: verify <question, turn id or entry id>",
        "it": "segna come verificata una risposta memorizzata: verify <domanda, turno o id>",
        "zh": "将缓存的回答标记为已核实：verify <问题、轮次 id 或条目 id>",
    },
    "verify_which": {
        "en": "verify what? the question, the turn id of the answer, or the entry id",
        "it": "verificare cosa? la domanda, il turno della risposta o l'id della voce",
        "zh": "核实哪个？请给出问题、回答的轮次 id 或条目 id",
    },
    "verify_no_match": {
        "en": "no cached answer for {target}: ask it first, then verify it",
        "it": "nessuna risposta memorizzata per {target}: prima fai la domanda, poi verificala",
        "zh": "{target} 没有缓存的回答：请先提问，再核实",
    },
    "verified_done": {
        "en": "verified: {question}", "it": "verificata: {question}", "zh": "已核实：{question}"},
    "verified_mark": {
        "en": "✔ Verified by an admin.", "it": "✔ Verificata da un amministratore.",
        "zh": "✔ 已由管理员核实。"},
}
