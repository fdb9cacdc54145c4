"""Sentences of the narrative answer (core.documents.narrative), and the name of each language
as the synthesis prompt asks the model to answer in it."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "narrative_empty": {
        "en": "I found nothing about this in the documents, so I cannot answer it.",
        "it": "Non ho trovato nulla su questo nei documenti, quindi non posso rispondere.",
        "zh": "文档中没有找到与此相关的内容，因此无法回答。",
    },
    "narrative_degraded": {
        "en": "Could not synthesise an answer; here are the sources.",
        "it": "Non è stato possibile sintetizzare una risposta; ecco le fonti.",
        "zh": "无法生成综合回答；以下是相关来源。",
    },
    # for the model, not the reader: the prompt is English and names the answer's language
    "language_name": {"en": "English", "it": "Italian", "zh": "Chinese"},
}
