"""Sentences of disclosure control (core.knowledge.disclosure, core.figures.disclosed) and
of bounded work per question (core.planning.bounds)."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    # disclosure control (core.knowledge.disclosure, core.figures.disclosed)
    "masked_entity": {"en": "{name} excluding undisclosed units",
                      "it": "{name} escluse le unità non divulgate",
                      "zh": "{name}（不含未披露单位）"},
    "masked_channel": {"en": "total excluding undisclosed channels",
                       "it": "totale esclusi i canali non divulgati",
                       "zh": "合计（不含未披露渠道）"},
    "masked_sum": {"en": "sum of {members}", "it": "somma di {members}",
                   "zh": "{members}之和"},
    "masked_note": {
        "en": "In this chat {name} is the sum of its disclosed units; units not disclosed here "
              "are excluded, and shares and ratios are of that sum.",
        "it": "In questa chat {name} è la somma delle sue unità divulgate; le unità non "
              "divulgate qui sono escluse, e quote e rapporti sono su quella somma.",
        "zh": "在本对话中，{name}为其已披露单位之和，不含此处未披露的单位，"
              "占比和比率均按该和计算。",
    },
    "masked_note_channel": {
        "en": "In this chat the total is the sum of the channels shown; channels not disclosed "
              "here are excluded, and shares and ratios are of that sum.",
        "it": "In questa chat il totale è la somma dei canali mostrati; i canali non divulgati "
              "qui sono esclusi, e quote e rapporti sono su quella somma.",
        "zh": "在本对话中，合计为所显示渠道之和，不含此处未披露的渠道，占比和比率均按该和计算。",
    },
    "masked_withheld": {
        "en": "{subject} is not shown in this chat: it includes units not disclosed here, and "
              "the sum of the disclosed ones would be incomplete (no figure for {missing}).",
        "it": "{subject} non è mostrato in questa chat: include unità non divulgate qui, e la "
              "somma di quelle divulgate sarebbe incompleta (nessun dato per {missing}).",
        "zh": "本对话不显示{subject}：它包含此处未披露的单位，而已披露单位之和不完整"
              "（{missing}没有数据）。",
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
