"""Sentences about how a question was read: a corrected spelling, a subject the bot has no
figure or document for, and the example questions of the help text."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    # core.question.read_as: never silent about reading 'reveneu' as Revenue
    "read_as": {
        "en": "Read '{raw}' as {name}",
        "it": "Ho letto '{raw}' come {name}",
        "zh": "已将“{raw}”理解为{name}",
    },
    # core.question.no_figure: a numeric question naming no metric of the glossary
    "no_figure": {
        "en": "I have no figure for {subject}.",
        "it": "Non ho dati su {subject}.",
        "zh": "我没有{subject}的数据。",
    },
    # core.question.scale_asked: figures shown in the scale the question asked for
    "scale_shown": {
        "en": "Figures shown in {scale}, as asked.",
        "it": "Valori espressi in {scale}, come richiesto.",
        "zh": "数值按要求以{scale}显示。",
    },
    # core.question.currency_asked: "in US dollars" on a CNY figure: said, never converted
    "currency_not_converted": {
        "en": "Figures are in {currencies}, as the fact table holds them: I never convert "
              "between currencies.",
        "it": "I valori sono in {currencies}, come nella tabella dei fatti: non converto mai "
              "tra valute.",
        "zh": "数值以{currencies}列示，与事实表一致：我不做货币换算。",
    },
    "scale_thousands": {"en": "thousands", "it": "migliaia", "zh": "千"},
    "scale_millions": {"en": "millions", "it": "milioni", "zh": "百万"},
    "scale_billions": {"en": "billions", "it": "miliardi", "zh": "十亿"},
    "scale_wan": {"en": "tens of thousands (万)", "it": "decine di migliaia (万)", "zh": "万"},
    "scale_yi": {"en": "hundreds of millions (亿)", "it": "centinaia di milioni (亿)", "zh": "亿"},
    # {value} the exact number, {scale} its scale word, {unit} what is counted (a currency)
    "scaled_value": {
        "en": "{value} {scale} {unit}",
        "it": "{value} {scale} {unit}",
        "zh": "{value}{scale}{unit}",
    },
    "scaled_word_thousands": {"en": "thousand", "it": "mila", "zh": "千"},
    "scaled_word_millions": {"en": "million", "it": "milioni", "zh": "百万"},
    "scaled_word_billions": {"en": "billion", "it": "miliardi", "zh": "十亿"},
    "scaled_word_wan": {"en": "× 10,000", "it": "× 10.000", "zh": "万"},
    "scaled_word_yi": {"en": "× 100 million", "it": "× 100 milioni", "zh": "亿"},
    # core.question.subject: never repeats the question's words (the same in every chat)
    "not_known": {
        "en": "I don't have that: neither the figures nor the documents I can search cover it.",
        "it": "Non ho questa informazione: né i dati né i documenti che posso consultare ne "
              "parlano.",
        "zh": "我没有这方面的信息：数据和我能查阅的文档都没有涉及。",
    },
    # core.knowledge.examples: the help text's examples, from the loaded knowledge base;
    # {Metric} is the name capitalised at a sentence start (the same in Chinese)
    "usage_example": {
        "en": 'Ask me a question, for example: "What was {entity} {metric} in {period}?" or '
              '"{Metric} by entity in {period}"',
        "it": 'Fammi una domanda, per esempio: "{metric} di {entity} nel {period}?" oppure '
              '"{Metric} per società nel {period}"',
        "zh": "请提问，例如：“{entity}{period}{metric}是多少？”或“{period}各实体{Metric}”",
    },
}
