"""Sentences of derived metrics (core.figures.derived): the computed figure with both
inputs and their sources, or why it cannot be computed."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "derived_found": {
        "en": "{subject}: {value} ({inputs}; {sources})",
        "it": "{subject}: {value} ({inputs}; {sources})",
        "zh": "{subject}：{value}（{inputs}；{sources}）",
    },
    "derived_sources": {"en": "sources: {titles}", "it": "fonti: {titles}", "zh": "来源：{titles}"},
    "derived_source": {"en": "source: {titles}", "it": "fonte: {titles}", "zh": "来源：{titles}"},
    "derived_missing_input": {
        "en": "I can't compute {subject}: the fact table has no {missing} figure for it.",
        "it": "Non posso calcolare {subject}: nella tabella dei fatti manca il dato {missing}.",
        "zh": "无法计算{subject}：事实表中没有对应的{missing}数据。",
    },
    "derived_zero_denominator": {
        "en": "I can't compute {subject}: {denominator} is zero, and a ratio over zero has no "
        "value.",
        "it": "Non posso calcolare {subject}: {denominator} è zero, e un rapporto su zero non ha "
        "valore.",
        "zh": "无法计算{subject}：{denominator}为零，比率没有数值。",
    },
    "derived_unit_mismatch": {
        "en": "I can't compute {subject}: its inputs are stored in other units than the "
        "formula expects.",
        "it": "Non posso calcolare {subject}: i dati di partenza sono in unità diverse da quelle "
        "previste dalla formula.",
        "zh": "无法计算{subject}：输入数据的单位与公式要求不符。",
    },
}
