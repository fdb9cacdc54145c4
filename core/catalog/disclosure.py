"""Sentences of disclosure control (core.knowledge.disclosure, core.figures.disclosed) and
of bounded work per question (core.planning.bounds)."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    # disclosure control (core.knowledge.disclosure, core.figures.disclosed)
    "withheld_total": {
        "en": "{subject}: not shown in this chat (with the figures shown here it would reveal "
              "a unit this chat isn't cleared for).",
        "it": "{subject}: non mostrato in questa chat (con i dati mostrati qui rivelerebbe "
              "un'unità non visibile in questa chat).",
        "zh": "{subject}：本对话不显示（结合此处显示的数据会泄露本对话无权查看的单位）。",
    },
    "withheld_total_channel": {
        "en": "{subject}: not shown in this chat (with the figures shown here it would reveal "
              "a channel this chat isn't cleared for).",
        "it": "{subject}: non mostrato in questa chat (con i dati mostrati qui rivelerebbe un "
              "canale non visibile in questa chat).",
        "zh": "{subject}：本对话不显示（结合此处显示的数据会泄露本对话无权查看的渠道）。",
    },
    "visible_together": {"en": "{members} together", "it": "{members} insieme",
                         "zh": "{members}合计"},
    "withheld_note": {
        "en": "{name}'s figure isn't shown in this chat: with the units shown here it would "
              "reveal a unit this chat isn't cleared for.",
        "it": "Il dato di {name} non è mostrato in questa chat: con le unità mostrate qui "
              "rivelerebbe un'unità non visibile in questa chat.",
        "zh": "本对话不显示{name}的数据：结合此处显示的单位会泄露本对话无权查看的单位。",
    },
    "withheld_note_channel": {
        "en": "The total isn't shown in this chat: with the channels shown here it would "
              "reveal a channel this chat isn't cleared for.",
        "it": "Il totale non è mostrato in questa chat: con i canali mostrati qui rivelerebbe "
              "un canale non visibile in questa chat.",
        "zh": "本对话不显示合计：结合此处显示的渠道会泄露本对话无权查看的渠道。",
    },
    "derived_withheld": {
        "en": "{subject}: not shown in this chat (it rests on a total that would reveal a unit "
              "this chat isn't cleared for).",
        "it": "{subject}: non mostrato in questa chat (si basa su un totale che rivelerebbe "
              "un'unità non visibile in questa chat).",
        "zh": "{subject}：本对话不显示（它基于一个会泄露本对话无权查看单位的合计）。",
    },
    "member_not_shown": {
        "en": "One member of {total} is not shown in this chat; the total includes it.",
        "it": "Un membro di {total} non è mostrato in questa chat; il totale lo include.",
        "zh": "{total}有一个成员未在本对话中显示；合计包含该成员。",
    },
    "members_not_shown": {
        "en": "{count} members of {total} are not shown in this chat; the total includes them.",
        "it": "{count} membri di {total} non sono mostrati in questa chat; il totale li include.",
        "zh": "{total}有{count}个成员未在本对话中显示；合计包含这些成员。",
    },
    "share_of_total": {
        "en": "Shares are of the total; members not shown make up the remaining {share}.",
        "it": "Le quote sono sul totale; i membri non mostrati fanno il restante {share}.",
        "zh": "占比按合计计算；未显示的成员占其余的{share}。",
    },
    # bounded work per question (core.planning.bounds)
    "bound_lookups": {
        "en": "This question asks for {asked} figures; I look up at most {limit} for one "
              "question, so I looked up none of them.",
        "it": "Questa domanda chiede {asked} dati; ne cerco al massimo {limit} per domanda, "
              "quindi non ne ho cercato nessuno.",
        "zh": "这个问题涉及{asked}个数据；每个问题最多查询{limit}个，因此一个也没有查询。",
    },
    "bound_cells": {
        "en": "The table this question asks for has {asked} cells; I draw at most {limit}, so I "
              "drew none of it.",
        "it": "La tabella richiesta ha {asked} celle; ne disegno al massimo {limit}, quindi non "
              "l'ho disegnata.",
        "zh": "所问的表格有{asked}个单元格；最多生成{limit}个，因此没有生成。",
    },
    "bound_range": {
        "en": "The range {first}–{last} has {count} periods; I answer at most {limit} in one "
              "question, so I answered none of them. Ask for a shorter range, for example "
              "{narrower}.",
        "it": "L'intervallo {first}–{last} ha {count} periodi; ne rispondo al massimo {limit} "
              "per domanda, quindi non ho risposto per nessuno. Chiedi un intervallo più breve, "
              "per esempio {narrower}.",
        "zh": "区间{first}–{last}共有{count}个期间；每个问题最多回答{limit}个，因此没有回答。"
              "请缩短区间，例如{narrower}。",
    },
    "bound_narrow": {
        "en": "Narrow the question: fewer figures, units, channels or periods.",
        "it": "Restringi la domanda: meno dati, unità, canali o periodi.",
        "zh": "请缩小问题范围：减少指标、单位、渠道或期间。",
    },
    "bound_cut": {
        "en": "The answer was cut at {limit} characters: {parts} more part(s) left out.",
        "it": "La risposta è stata tagliata a {limit} caratteri: {parts} altre parti omesse.",
        "zh": "回答在{limit}个字符处截断：省略了其余{parts}部分。",
    },
    "bound_rows": {
        "en": "First {shown} of {total} rows shown.",
        "it": "Mostrate le prime {shown} righe su {total}.",
        "zh": "仅显示{total}行中的前{shown}行。",
    },
    "bound_messages": {
        "en": "The answer was longer than {limit} messages; the rest is left out. Narrow the "
              "question to see it.",
        "it": "La risposta superava {limit} messaggi; il resto è omesso. Restringi la domanda "
              "per vederlo.",
        "zh": "回答超过{limit}条消息，其余部分已省略。请缩小问题范围。",
    },
    "table_attached": {
        "en": "The full table ({rows} rows) is attached as {file}.",
        "it": "La tabella completa ({rows} righe) è allegata come {file}.",
        "zh": "完整表格（{rows}行）已作为附件{file}发送。",
    },
}
