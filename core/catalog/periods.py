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
    "period_rank_bounded": {
        "en": "Ranked over the latest {n} of {total} periods with figures ({first}–{last}): "
              "the bound on lookups per question.",
        "it": "Classifica sugli ultimi {n} dei {total} periodi con dati ({first}–{last}): il "
              "limite di consultazioni per domanda.",
        "zh": "排名只涵盖有数据的{total}个期间中最近的{n}个（{first}至{last}）："
              "每个问题的查询上限。",
    },
}
