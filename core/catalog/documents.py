"""Sentences of the narrative answer (core.documents.narrative), the name of each language as
the synthesis prompt asks the model to answer in it, and the words naming a place in a document."""

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
    # a place in a document, as its citation names it (core.documents.source_titles)
    "locator_page": {"en": "p. {v}", "it": "pag. {v}", "zh": "第{v}页"},
    "locator_table": {"en": "table {v}", "it": "tabella {v}", "zh": "表{v}"},
    "locator_row": {"en": "row {v}", "it": "riga {v}", "zh": "第{v}行"},
    "locator_col": {"en": "column {v}", "it": "colonna {v}", "zh": "{v}列"},
    "locator_slide": {"en": "slide {v}", "it": "slide {v}", "zh": "第{v}张幻灯片"},
    "locator_para": {"en": "para. {v}", "it": "par. {v}", "zh": "第{v}段"},
    "locator_section": {"en": "“{v}”", "it": "«{v}»", "zh": "“{v}”"},
    "locator_sheet": {"en": "sheet {v}", "it": "foglio {v}", "zh": "工作表{v}"},
    "locator_cell": {"en": "cell {v}", "it": "cella {v}", "zh": "单元格{v}"},
    # a row or column named rather than numbered ("row GROUP_EBITDA", never "第GROUP_EBITDA行")
    "locator_row_named": {"en": "row {v}", "it": "riga {v}", "zh": "行 {v}"},
    "locator_col_named": {"en": "column {v}", "it": "colonna {v}", "zh": "列 {v}"},
}
