"""Sentences about the periods an answer covers: a range reaching outside the data, a period
ranking cut to the per-question bound, counts over members and periods."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "range_used": {
        "en": "Of the range asked ({asked_first}–{asked_last}), the answer covers "
              "{first}–{last}: the periods with figures, {limit} at most.",
        "it": "Dell'intervallo chiesto ({asked_first}–{asked_last}) la risposta copre "
              "{first}–{last}: i periodi con dati, al massimo {limit}.",
        "zh": "所问范围为{asked_first}至{asked_last}，回答涵盖{first}至{last}：即有数据的期间，"
              "最多{limit}个。",
    },
    "grain_used": {
        "en": "The fact table has no monthly figures here: {asked_first}–{asked_last} is "
              "answered with the periods it holds inside that span, {first}–{last}.",
        "it": "Nella tabella dei fatti non ci sono dati mensili: per {asked_first}–{asked_last} "
              "la risposta usa i periodi che contiene in quell'intervallo, {first}–{last}.",
        "zh": "事实表中没有月度数据：{asked_first}至{asked_last}按该区间内已有的期间"
              "{first}至{last}回答。",
    },
    "period_rank_bounded": {
        "en": "Ranked over the latest {n} of {total} periods with figures ({first}–{last}): "
              "the bound on lookups per question.",
        "it": "Classifica sugli ultimi {n} dei {total} periodi con dati ({first}–{last}): il "
              "limite di consultazioni per domanda.",
        "zh": "排名只涵盖有数据的{total}个期间中最近的{n}个（{first}至{last}）："
              "每个问题的查询上限。",
    },
    "count_above": {
        "en": "{subject}, {where}: {count} of {total} above {threshold}: {items}.",
        "it": "{subject}, {where}: {count} su {total} sopra {threshold}: {items}.",
        "zh": "{where}{subject}：{total}个中有{count}个高于{threshold}：{items}。",
    },
    "count_below": {
        "en": "{subject}, {where}: {count} of {total} below {threshold}: {items}.",
        "it": "{subject}, {where}: {count} su {total} sotto {threshold}: {items}.",
        "zh": "{where}{subject}：{total}个中有{count}个低于{threshold}：{items}。",
    },
    "count_fell": {
        "en": "{subject}, {where}: fell in {count} of {total} periods compared: {items}.",
        "it": "{subject}, {where}: in calo in {count} su {total} periodi confrontati: {items}.",
        "zh": "{where}{subject}：在比较的{total}个期间中有{count}个下降：{items}。",
    },
    "count_rose": {
        "en": "{subject}, {where}: rose in {count} of {total} periods compared: {items}.",
        "it": "{subject}, {where}: in crescita in {count} su {total} periodi confrontati: "
              "{items}.",
        "zh": "{where}{subject}：在比较的{total}个期间中有{count}个上升：{items}。",
    },
    "count_after": {"en": " (after {value} {n})", "it": " (dopo {value} {n})",
                    "zh": "（此前{value} {n}）"},
    "count_none": {"en": "none", "it": "nessuno", "zh": "无"},
}
