"""Sentences of answers about figures and documents: found, not found, assumed, tables,
narrowing options, the clock, the model planner's "understood as"."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "usage": {
        "en": 'Ask me a question, for example: "What was Orbis China revenue in FY2024?" or '
        '"Why did revenue in China fall?"',
        "it": 'Fammi una domanda, per esempio: "Qual è stato il fatturato di Orbis Cina nel 2024?" '
        'oppure "Perché il fatturato in Cina è calato?"',
        "zh": "请提问，例如：“2024年中国区营收是多少？”或“中国区营收为什么下降？”",
    },
    "truncated": {
        "en": "Your question was longer than {limit} characters; I answered its first {limit}.",
        "it": "La domanda superava {limit} caratteri; ho risposto ai primi {limit}.",
        "zh": "问题超过 {limit} 个字符，我只回答了前 {limit} 个字符。",
    },
    "not_understood": {
        "en": "Sorry, I did not understand the question. I answer about {metrics} for {entities}, "
        "and explain them from the company's documents.",
        "it": "Scusa, non ho capito la domanda. Rispondo su {metrics} per {entities}, "
        "e li spiego dai documenti aziendali.",
        "zh": "抱歉，我没有理解这个问题。我可以回答{entities}的{metrics}，并根据公司文档进行解释。",
    },
    "refused": {
        "en": "That is outside what I can answer. You can ask about {metrics} for {entities}.",
        "it": "Questo è fuori da ciò a cui posso rispondere. "
        "Puoi chiedere di {metrics} per {entities}.",
        "zh": "这超出了我可以回答的范围。您可以询问{entities}的{metrics}。",
    },
    "ask_metric": {
        "en": "Which figure do you mean? Choose one: {metrics}.",
        "it": "Quale dato intendi? Scegline uno: {metrics}.",
        "zh": "您指的是哪个指标？请选择：{metrics}。",
    },
    "found": {  # value: the number in its unit, as [units] say (core.knowledge.units)
        "en": "{subject}: {value}",
        "it": "{subject}: {value}",
        "zh": "{subject}：{value}",
    },
    "source": {
        "en": "source: {title}",
        "it": "fonte: {title}",
        "zh": "来源：{title}",
    },
    "not_found": {
        "en": "I have no figure for {subject} in the fact table.",
        "it": "Non ho un dato per {subject} nella tabella dei fatti.",
        "zh": "事实表中没有{subject}的数据。",
    },
    "unknown_entity": {
        "en": 'I don\'t know the company or unit "{raw}". I can answer about: {entities}.',
        "it": 'Non conosco la società o unità "{raw}". Posso rispondere su: {entities}.',
        "zh": "我不认识“{raw}”这个公司或部门。我可以回答：{entities}。",
    },
    "unknown_period": {
        "en": '"{raw}" is not a period I understand (try FY2024, H1 2025, Q3 2025).',
        "it": '"{raw}" non è un periodo che capisco (prova FY2024, H1 2025, Q3 2025).',
        "zh": "我无法识别期间“{raw}”（可以试试 2024年、2025年上半年、2025年第三季度）。",
    },
    "unknown_param": {
        "en": 'I don\'t recognise the {param} "{raw}".',
        "it": 'Non riconosco {param} "{raw}".',
        "zh": "我无法识别{param}“{raw}”。",
    },
    "difference": {
        "en": "Change {later} vs {earlier}: {delta} ({pct})",
        "it": "Variazione {later} rispetto a {earlier}: {delta} ({pct})",
        "zh": "{later}相比{earlier}的变化：{delta}（{pct}）",
    },
    "carried": {  # a follow-up's inherited slots ("and Italy?" after a figure)
        "en": "Carried over from your previous question: {items}.",
        "it": "Ripreso dalla domanda precedente: {items}.",
        "zh": "沿用上一个问题：{items}。",
    },
    "assumed": {"en": "Assumed: {items}.", "it": "Ho assunto: {items}.", "zh": "假设：{items}。"},
    # tables (core.figures.tabulate): column headers, titles and the sentences around them
    "col_period": {"en": "Period", "it": "Periodo", "zh": "期间"},
    "col_change": {"en": "Change", "it": "Variazione", "zh": "变化"},
    "col_pct_change": {"en": "% change", "it": "Var. %", "zh": "变化率"},
    "col_share": {"en": "Share", "it": "Quota", "zh": "占比"},
    "col_source": {"en": "Source", "it": "Fonte", "zh": "来源"},
    "col_growth": {"en": "Growth", "it": "Crescita", "zh": "增长率"},
    "col_vs": {"en": "vs {first}", "it": "vs {first}", "zh": "与{first}相比"},
    "dim_entity": {"en": "Entity", "it": "Entità", "zh": "主体"},
    "dim_channel": {"en": "Channel", "it": "Canale", "zh": "渠道"},
    "by_entity": {"en": "by entity", "it": "per entità", "zh": "按主体"},
    "by_channel": {"en": "by channel", "it": "per canale", "zh": "按渠道"},
    "total_row": {"en": "Total", "it": "Totale", "zh": "合计"},
    # core.figures.tabulate: a unit reporting in its own currency, beside a table in another
    "currency_apart": {
        "en": "{entity} reports in {currency} ({value} {cite}, {period}): not ranked, added or "
              "compared with figures in {others}.",
        "it": "{entity} riporta in {currency} ({value} {cite}, {period}): non è classificata, "
              "sommata né confrontata con dati in {others}.",
        "zh": "{entity}以{currency}报告（{period}：{value}{cite}）："
              "不与{others}数据一起排名、相加或比较。",
    },
    "no_figure_for": {"en": "No figure for {items}.", "it": "Nessun dato per {items}.",
                      "zh": "以下没有数据：{items}。"},
    "series_title": {"en": "{subject}, {first}–{last}", "it": "{subject}, {first}–{last}",
                     "zh": "{subject}，{first}–{last}"},
    "breakdown_title": {"en": "{subject} {by}, {period}", "it": "{subject} {by}, {period}",
                        "zh": "{period}{subject}（{by}）"},
    "ranking_title": {"en": "{subject}, {period}: ranking {by}",
                      "it": "{subject}, {period}: classifica {by}",
                      "zh": "{period}{subject}排名（{by}）"},
    "growth_title": {"en": "{subject} growth, {later} vs {earlier}: ranking {by}",
                     "it": "Crescita {subject}, {later} rispetto a {earlier}: classifica {by}",
                     "zh": "{later}相比{earlier}{subject}增长率排名（{by}）"},
    "comparison_title": {"en": "{subject}, {period}: comparison", "it": "{subject}, {period}: "
                         "confronto", "zh": "{period}{subject}对比"},
    "ranked_first": {"en": "First: {member}, {value}.", "it": "Al primo posto: {member}, {value}.",
                     "zh": "排名第一：{member}，{value}。"},
    "ranked_last": {"en": "Lowest: {member}, {value}.", "it": "All'ultimo posto: {member}, "
                    "{value}.", "zh": "排名最后：{member}，{value}。"},
    "assumed_metric": {"en": "{value} (not named in the question)",
                       "it": "{value} (non indicato nella domanda)",
                       "zh": "{value}（问题中未指明）"},
    "points": {"en": "{value} pp", "it": "{value} p.p.", "zh": "{value}个百分点"},
    "assumed_members": {  # core.figures.levels: no level named in a deeper hierarchy
        "en": "the lowest level of the hierarchy ({value})",
        "it": "il livello più basso della gerarchia ({value})",
        "zh": "层级中的最低一级（{value}）",
    },
    "assumed_entity": {
        "en": "{value} (default entity)",
        "it": "{value} (entità predefinita)",
        "zh": "{value}（默认主体）",
    },
    "assumed_period": {
        "en": "{value} (last complete fiscal year)",
        "it": "{value} (ultimo esercizio completo)",
        "zh": "{value}（最近一个完整财年）",
    },
    "narrow": {
        "en": "Choose an option to narrow the question.",
        "it": "Scegli un'opzione per restringere la domanda.",
        "zh": "可以选择下面的选项缩小问题范围。",
    },
    "attribution": {"en": "Why:", "it": "Perché:", "zh": "归因分析："},
    "no_documents": {
        "en": "I found nothing about this in the documents, so I cannot explain it.",
        "it": "Non ho trovato nulla su questo nei documenti, quindi non posso spiegarlo.",
        "zh": "文档中没有找到相关内容，因此无法解释。",
    },
    "sources": {"en": "Sources", "it": "Fonti", "zh": "来源"},
    # the header above each group of narrowing buttons: what tapping one of them changes
    "slot_entity": {"en": "Company or unit:", "it": "Società o unità:", "zh": "公司或部门："},
    "slot_period": {"en": "Period:", "it": "Periodo:", "zh": "期间："},
    "slot_metric": {"en": "Figure:", "it": "Dato:", "zh": "指标："},
    "slot_channel": {"en": "Channel:", "it": "Canale:", "zh": "渠道："},
    "clock": {"en": "It is {time} on {date} {tz}.", "it": "Sono le {time} del {date} {tz}.",
              "zh": "现在是 {date} {time} {tz}。"},
    "previous_sources": {"en": "Sources of my previous answer:",
                         "it": "Fonti della mia risposta precedente:",
                         "zh": "上一个回答的来源："},
    "no_previous_sources": {"en": "My previous answer in this chat had no sources.",
                            "it": "La mia risposta precedente in questa chat non aveva fonti.",
                            "zh": "我在本对话中的上一个回答没有来源。"},
    "previous_sources_withheld": {
        "en": "The sources of my previous answer are not shown: it was given while this chat "
              "was cleared for restricted data, and it no longer is.",
        "it": "Le fonti della mia risposta precedente non sono mostrate: è stata data quando "
              "questa chat era abilitata ai dati riservati, e ora non lo è più.",
        "zh": "不显示我上一个回答的来源：该回答是在本对话有权查看受限数据时给出的，"
              "现在已无此权限。",
    },
    "param_entity": {"en": "entity", "it": "l'entità", "zh": "主体"},
    "param_period": {"en": "period", "it": "il periodo", "zh": "期间"},
    "param_metric": {"en": "metric", "it": "la metrica", "zh": "指标"},
    "param_channel": {"en": "channel", "it": "il canale", "zh": "渠道"},
    "and": {"en": " and ", "it": " e ", "zh": "和"},
    "assumed_period_latest": {
        "en": "{value} (the latest fiscal year with a figure: {missing} has none yet)",
        "it": "{value} (l'ultimo esercizio con un dato: {missing} non ne ha ancora)",
        "zh": "{value}（有数据的最近财年：{missing}尚无数据）",
    },
    "fiscal_year_ends": {
        "en": " The fiscal year ends on {day}.",
        "it": " L'esercizio si chiude il {day}.",
        "zh": "财年于每年{day}结束。",
    },
    "assumed_period_named": {
        "en": "{value} (the latest complete one: \"{raw}\" names no year)",
        "it": "{value} (l'ultimo concluso: \"{raw}\" non indica l'anno)",
        "zh": "{value}（最近一个已结束的：“{raw}”未指明年份）",
    },
    # the model planner (core.planning.model_planner): how a question the rules could not
    # read was understood, and what shows while the model works
    "understood_as": {
        "en": "Understood as: {items}.",
        "it": "Ho interpretato la domanda come: {items}.",
        "zh": "理解为：{items}。",
    },
    "understood_documents": {"en": "from the documents", "it": "dai documenti", "zh": "来自文档"},
    "thinking": {
        "en": "Working out how to read your question…",
        "it": "Sto capendo come leggere la domanda…",
        "zh": "正在理解您的问题……",
    },
}
