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
