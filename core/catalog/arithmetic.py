"""Sentences of arithmetic answers (sums, averages, growth, shares, growth comparisons,
rankings over periods). Every one shows its formula with each input and the number of the source
it cites ("= €128.9M [1] + €137.6M [2]")."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "sum_periods": {
        "en": "{subject}, total {first}–{last}: {value} (= {terms})",
        "it": "{subject}, totale {first}–{last}: {value} (= {terms})",
        "zh": "{subject}{first}至{last}合计：{value}（= {terms}）",
    },
    "sum_of_parts": {
        "en": "{subject}: {value}, {parts} ({terms}; {sources})",
        "it": "{subject}: {value}, {parts} ({terms}; {sources})",
        "zh": "{subject}：{value}，{parts}（{terms}；{sources}）",
    },
    "parts_quarters": {"en": "the sum of its {n} quarters", "it": "somma dei suoi {n} trimestri",
                       "zh": "为其{n}个季度之和"},
    "parts_halves": {"en": "the sum of its two halves", "it": "somma dei suoi due semestri",
                     "zh": "为其两个半年之和"},
    "parts_months": {"en": "the sum of its {n} months", "it": "somma dei suoi {n} mesi",
                     "zh": "为其{n}个月之和"},
    "average_periods": {
        "en": "{subject}, average {first}–{last}: {value} (= ({terms}) ÷ {n})",
        "it": "{subject}, media {first}–{last}: {value} (= ({terms}) ÷ {n})",
        "zh": "{subject}{first}至{last}平均：{value}（= ({terms}) ÷ {n}）",
    },
    "sum_members": {
        "en": "{subject}, {members} combined, {period}: {value} (= {terms})",
        "it": "{subject}, {members} insieme, {period}: {value} (= {terms})",
        "zh": "{members}{period}{subject}合计：{value}（= {terms}）",
    },
    "average_members": {
        "en": "{subject}, average of {members}, {period}: {value} (= ({terms}) ÷ {n})",
        "it": "{subject}, media di {members}, {period}: {value} (= ({terms}) ÷ {n})",
        "zh": "{members}{period}{subject}平均：{value}（= ({terms}) ÷ {n}）",
    },
    "stock_averaged": {
        "en": "{metric} is counted at each period's end and does not add up over periods: "
        "this is the average, not a sum.",
        "it": "{metric} è un dato di fine periodo e non si somma tra periodi: questa è la media, "
        "non la somma.",
        "zh": "{metric}是期末数据，不能跨期间相加：以下为平均值，而非合计。",
    },
    "rate_averaged": {
        "en": "{metric} is a rate and does not add up: this is the simple (unweighted) "
        "average, not a sum.",
        "it": "{metric} è un tasso e non si somma: questa è la media semplice (non ponderata), "
        "non la somma.",
        "zh": "{metric}是比率，不能相加：以下为简单（未加权）平均值，而非合计。",
    },
    "missing": {
        "en": "I can't compute {what}: the fact table has no figure for {missing}, and a "
        "result without it would be incomplete.",
        "it": "Non posso calcolare {what}: nella tabella dei fatti manca il dato per {missing}, "
        "e un risultato senza di esso sarebbe incompleto.",
        "zh": "无法计算{what}：事实表中没有{missing}的数据，缺少它的结果不完整。",
    },
    "unit_mismatch": {
        "en": "I can't compute {what}: its figures are in different units ({units}), which "
        "cannot be added or compared.",
        "it": "Non posso calcolare {what}: i dati sono in unità diverse ({units}), che non si "
        "possono sommare né confrontare.",
        "zh": "无法计算{what}：数据的单位不同（{units}），不能相加或比较。",
    },
    # core.figures.aggregate.one_unit: a unit reporting in its own currency (docs/own-data.md)
    "currency_mismatch": {
        "en": "I can't compute {what}: its figures are in different currencies ({currencies}), "
        "and I never add, compare or convert figures across currencies. Each in its own:",
        "it": "Non posso calcolare {what}: i dati sono in valute diverse ({currencies}), e non "
        "sommo, confronto né converto mai dati in valute diverse. Ciascuno nella sua:",
        "zh": "无法计算{what}：数据的币种不同（{currencies}），我不会跨币种相加、比较或换算。"
        "各自以原币种列示：",
    },
    "currency_split_item": {
        "en": "• {subject}, {period}: {value} {cite}",
        "it": "• {subject}, {period}: {value} {cite}",
        "zh": "• {subject}，{period}：{value}{cite}",
    },
    "zero_base": {
        "en": "I can't compute {what}: {base} is zero, and a rate over zero has no value.",
        "it": "Non posso calcolare {what}: {base} è zero, e un rapporto su zero non ha valore.",
        "zh": "无法计算{what}：{base}为零，比率没有数值。",
    },
    "growth": {
        "en": "{subject} growth, {later} vs {earlier}: {value} (= ({a} [{na}] − {b} [{nb}]) "
        "÷ {b})",
        "it": "{subject}, crescita {later} rispetto a {earlier}: {value} (= ({a} [{na}] − {b} "
        "[{nb}]) ÷ {b})",
        "zh": "{subject}{later}较{earlier}增长率：{value}（= ({a} [{na}] − {b} [{nb}]) ÷ {b}）",
    },
    "growth_points": {
        "en": "{subject} change, {later} vs {earlier}: {value} (= {a} [{na}] − {b} [{nb}]; a "
        "rate changes in percentage points)",
        "it": "{subject}, variazione {later} rispetto a {earlier}: {value} (= {a} [{na}] − {b} "
        "[{nb}]; un tasso varia in punti percentuali)",
        "zh": "{subject}{later}较{earlier}变化：{value}（= {a} [{na}] − {b} [{nb}]；比率的变化以"
        "百分点计）",
    },
    "growth_what": {
        "en": "{subject} growth, {later} vs {earlier}",
        "it": "la crescita {subject}, {later} rispetto a {earlier}",
        "zh": "{subject}{later}较{earlier}的增长率",
    },
    "share": {
        "en": "{member} share of {whole}, {period}: {value} (= {a} [{na}] ÷ {b} [{nb}])",
        "it": "Quota di {member} sul totale {whole}, {period}: {value} (= {a} [{na}] ÷ {b} "
        "[{nb}])",
        "zh": "{member}占{whole}的比例（{period}）：{value}（= {a} [{na}] ÷ {b} [{nb}]）",
    },
    "share_what": {
        "en": "the {member} share of {whole}, {period}",
        "it": "la quota di {member} sul totale {whole}, {period}",
        "zh": "{member}占{whole}的比例（{period}）",
    },
    "share_of_rate": {
        "en": "{metric} is a rate: it has no share of a total. Ask for the figures, or compare "
        "them.",
        "it": "{metric} è un tasso: non ha una quota di un totale. Chiedi i valori, o "
        "confrontali.",
        "zh": "{metric}是比率，没有占总数的比例。请查询具体数值或进行比较。",
    },
    "share_no_member": {
        "en": "Which unit's share of {whole} do you mean? Name one unit or channel.",
        "it": "La quota di quale unità sul totale {whole}? Indica un'unità o un canale.",
        "zh": "请指明要计算哪个主体或渠道占{whole}的比例。",
    },
    "faster_yes": {
        "en": "Yes: {a} grew faster than {b} in {period} ({ga} vs {gb}).",
        "it": "Sì: {a} è cresciuta più di {b} nel {period} ({ga} contro {gb}).",
        "zh": "是的：{period}{a}的增长快于{b}（{ga}对{gb}）。",
    },
    "faster_no": {
        "en": "No: {a} did not grow faster than {b} in {period} ({ga} vs {gb}).",
        "it": "No: {a} non è cresciuta più di {b} nel {period} ({ga} contro {gb}).",
        "zh": "不是：{period}{a}的增长并不快于{b}（{ga}对{gb}）。",
    },
    "slower_yes": {
        "en": "Yes: {a} grew more slowly than {b} in {period} ({ga} vs {gb}).",
        "it": "Sì: {a} è cresciuta meno di {b} nel {period} ({ga} contro {gb}).",
        "zh": "是的：{period}{a}的增长慢于{b}（{ga}对{gb}）。",
    },
    "slower_no": {
        "en": "No: {a} did not grow more slowly than {b} in {period} ({ga} vs {gb}).",
        "it": "No: {a} non è cresciuta meno di {b} nel {period} ({ga} contro {gb}).",
        "zh": "不是：{period}{a}的增长并不慢于{b}（{ga}对{gb}）。",
    },
    "same_growth": {
        "en": "No: {a} and {b} grew at the same rate in {period} ({ga}).",
        "it": "No: {a} e {b} sono cresciute allo stesso ritmo nel {period} ({ga}).",
        "zh": "不是：{period}{a}与{b}的增长率相同（{ga}）。",
    },
    "comparison_what": {
        "en": "whether {a} grew faster than {b} in {period}",
        "it": "se {a} sia cresciuta più di {b} nel {period}",
        "zh": "{period}{a}的增长是否快于{b}",
    },
    "period_highest": {
        "en": "{subject} was highest in {period}: {value} [{n}].",
        "it": "Valore più alto di {subject}: {period}, {value} [{n}].",
        "zh": "{subject}最高的期间：{period}，{value} [{n}]。",
    },
    "period_lowest": {
        "en": "{subject} was lowest in {period}: {value} [{n}].",
        "it": "Valore più basso di {subject}: {period}, {value} [{n}].",
        "zh": "{subject}最低的期间：{period}，{value} [{n}]。",
    },
    "period_ranking_title": {
        "en": "{subject}, {first}–{last}: ranking by period",
        "it": "{subject}, {first}–{last}: classifica per periodo",
        "zh": "{subject}{first}至{last}按期间排名",
    },
    "no_periods": {
        "en": "I have no {grain} figures for {subject} in the fact table.",
        "it": "Non ho dati {grain} per {subject} nella tabella dei fatti.",
        "zh": "事实表中没有{subject}的{grain}数据。",
    },
    "grain_FY": {"en": "yearly", "it": "annuali", "zh": "年度"},
    "grain_HY": {"en": "half-yearly", "it": "semestrali", "zh": "半年度"},
    "grain_Q": {"en": "quarterly", "it": "trimestrali", "zh": "季度"},
    "grain_M": {"en": "monthly", "it": "mensili", "zh": "月度"},
}
