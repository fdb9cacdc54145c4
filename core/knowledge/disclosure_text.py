"""The sentences of disclosure control and bounded work, in English, Italian and Chinese.

Kept apart from core.messages (which takes them into its table) so the features that say them
stay small to review; `say` is the only way they are read.
"""

from __future__ import annotations

TEXT: dict[str, dict[str, str]] = {
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
}
