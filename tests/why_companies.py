"""Two small companies that are not the demo, written for the why/levels/currency tests.

- **Lumen** (EUR, fiscal year to March): group > two regions > four units (a Milan and a Turin
  plant in the North, a Naples and a Bari plant in the South). Documents in English and Italian,
  as `.md`, `.docx`, `.pdf` and `.pptx`; each explains a change of revenue and gives the reason
  (a named plant, contract, port or customer) in a LATER paragraph, after an opening summary
  that repeats the question's words without the cause.
- **Harbor** (USD, fiscal year to September): a US unit with figures, a China unit with
  documents only. A Chinese `.md` and an English `.docx`, same shape.

`REASONS` lists, per why-question, the phrase that gives the cause: the answer quotes it or not.
"""

from __future__ import annotations

from pathlib import Path

from tests.document_fixtures import write_docx, write_pdf, write_pptx

HEADER = "metric,entity,period_type,period,channel,value,unit,source_doc,source_locator"

# --- Lumen --------------------------------------------------------------------------------

LUMEN_UNITS = {  # unit: (region, revenue FY2024, FY2025, margin FY2024, FY2025)
    "LUMEN_MILANO": ("LUMEN_NORTH", "48.0", "41.2", "11.5", "8.1"),
    "LUMEN_TORINO": ("LUMEN_NORTH", "30.5", "36.9", "9.0", "12.4"),
    "LUMEN_NAPOLI": ("LUMEN_SOUTH", "27.3", "22.8", "7.2", "6.5"),
    "LUMEN_BARI": ("LUMEN_SOUTH", "19.6", "17.1", "10.3", "9.9"),
}
LUMEN_REGIONS = {"LUMEN_NORTH": ("10.4", "10.1"), "LUMEN_SOUTH": ("8.5", "7.8")}  # margins

LUMEN_GLOSSARY = """\
[scope]
default_entity = "LUMEN_GROUP"
fiscal_year_end = "03-31"
restricted_chats = []

[metrics.REVENUE]
names = ["revenue", "sales", "fatturato", "ricavi", "营收"]
unit = "EUR_M"

[metrics.MARGIN]
names = ["margin", "operating margin", "margine", "margine operativo", "利润率"]
unit = "PCT"
additive = false

[entities.LUMEN_GROUP]
names = ["Lumen Group", "Lumen", "Gruppo Lumen", "Lumen集团"]

[entities.LUMEN_NORTH]
names = ["Lumen North", "North region", "Lumen Nord", "北区"]
parent = "LUMEN_GROUP"
{north_level}
[entities.LUMEN_SOUTH]
names = ["Lumen South", "South region", "Lumen Sud", "南区"]
parent = "LUMEN_GROUP"
{south_level}
[entities.LUMEN_MILANO]
names = ["Lumen Milano", "Milano", "Milan", "米兰"]
parent = "LUMEN_NORTH"
{unit_level}
[entities.LUMEN_TORINO]
names = ["Lumen Torino", "Torino", "Turin", "都灵"]
parent = "LUMEN_NORTH"
{unit_level}
[entities.LUMEN_NAPOLI]
names = ["Lumen Napoli", "Napoli", "Naples", "那不勒斯"]
parent = "LUMEN_SOUTH"
{unit_level}
[entities.LUMEN_BARI]
names = ["Lumen Bari", "Bari", "巴里"]
parent = "LUMEN_SOUTH"
{unit_level}
{levels}
[[documents]]
source = "lumen"
path = "docs"
restricted = false
"""

LUMEN_LEVELS = """
[levels.region]
names = ["region", "regions", "regione", "regioni", "区域", "大区"]

[levels.unit]
names = ["unit", "units", "plant", "plants", "stabilimento", "stabilimenti", "unità", "工厂"]
"""


def lumen_glossary(levels: bool = True) -> str:
    """Lumen's glossary; with `levels`, its hierarchy levels named (docs/formats.md)."""
    region = 'level = "region"\n' if levels else ""
    unit = 'level = "unit"\n' if levels else ""
    return LUMEN_GLOSSARY.format(
        north_level=region, south_level=region, unit_level=unit,
        levels=LUMEN_LEVELS if levels else "",
    )


def lumen_facts() -> str:
    rows = [HEADER]
    group24 = group25 = 0.0
    for code, (_, r24, r25, m24, m25) in LUMEN_UNITS.items():
        rows.append(f"REVENUE,{code},FY,2024,,{r24},EUR_M,lumen_ar_2025.pdf,page=4")
        rows.append(f"REVENUE,{code},FY,2025,,{r25},EUR_M,lumen_ar_2025.pdf,page=4")
        rows.append(f"MARGIN,{code},FY,2024,,{m24},PCT,lumen_ar_2025.pdf,page=5")
        rows.append(f"MARGIN,{code},FY,2025,,{m25},PCT,lumen_ar_2025.pdf,page=5")
        group24, group25 = group24 + float(r24), group25 + float(r25)
    for code, (m24, m25) in LUMEN_REGIONS.items():
        rows.append(f"MARGIN,{code},FY,2024,,{m24},PCT,lumen_ar_2025.pdf,page=5")
        rows.append(f"MARGIN,{code},FY,2025,,{m25},PCT,lumen_ar_2025.pdf,page=5")
    rows.append(f"REVENUE,LUMEN_GROUP,FY,2024,,{group24:.1f},EUR_M,lumen_ar_2025.pdf,page=3")
    rows.append(f"REVENUE,LUMEN_GROUP,FY,2025,,{group25:.1f},EUR_M,lumen_ar_2025.pdf,page=3")
    return "\n".join(rows) + "\n"


_FILLER_EN = [
    "The management team met customers in every quarter and renewed the framework agreements "
    "that cover most of the plant's volumes, with prices indexed to energy and labour costs.",
    "Headcount was stable through the year; training hours rose, and the safety record "
    "improved again, with no lost-time injury in the second half.",
    "Capital expenditure went mainly to maintenance and to the new enterprise planning system, "
    "which went live in November on schedule and within its budget.",
]
_FILLER_IT = [
    "Il management ha incontrato i clienti in ogni trimestre e rinnovato gli accordi quadro "
    "che coprono la maggior parte dei volumi, con prezzi indicizzati a energia e lavoro.",
    "L'organico è rimasto stabile nel corso dell'anno; le ore di formazione sono aumentate e "
    "gli indicatori di sicurezza sono migliorati ancora, senza infortuni nel secondo semestre.",
    "Gli investimenti sono andati soprattutto alla manutenzione e al nuovo sistema gestionale, "
    "entrato in funzione a novembre nei tempi e nel budget previsti.",
]


def write_lumen(root: Path, *, levels: bool = True) -> Path:
    """Lumen's glossary, facts and documents under `root`; returns `root`."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (root / "glossary.toml").write_text(lumen_glossary(levels), encoding="utf-8")
    (root / "facts.csv").write_text(lumen_facts(), encoding="utf-8")
    # Milano (.md, en): the cause is a fire at a named plant, in the fourth section
    (docs / "milano_review_fy2025.md").write_text(
        "# Lumen Milano: fiscal 2025 review\n\n"
        "## Summary\n\n"
        "Lumen Milano revenue fell in fiscal 2025, to EUR 41.2 million from EUR 48.0 million, "
        "and the operating margin fell to 8.1%. Lumen Milano remains the largest unit of the "
        "group by revenue.\n\n"
        "## Customers\n\n" + _FILLER_EN[0] + "\n\n"
        "## People\n\n" + _FILLER_EN[1] + "\n\n"
        "## Investment\n\n" + _FILLER_EN[2] + "\n\n"
        "## Production\n\n"
        "Output was lower because the Brescia coating line was shut for seven weeks after a "
        "fire in July 2024, and orders it could not fill went to other suppliers. The line "
        "restarted in September 2024.\n",
        encoding="utf-8",
    )
    # Napoli (.docx, it): the cause is a lost contract, in the last paragraph
    write_docx(docs / "napoli_relazione_2025.docx", [
        ("h1", "Lumen Napoli: relazione sull'esercizio 2025"),
        ("p", "Nell'esercizio 2025 il fatturato di Lumen Napoli è calato a 22,8 milioni di euro "
              "da 27,3 milioni, e il margine operativo è sceso al 6,5%. Lumen Napoli resta il "
              "secondo stabilimento del Sud."),
        ("h1", "Clienti"), ("p", _FILLER_IT[0]),
        ("h1", "Persone"), ("p", _FILLER_IT[1]),
        ("h1", "Investimenti"), ("p", _FILLER_IT[2]),
        ("h1", "Commesse"),
        ("p", "La flessione è dovuta alla perdita del contratto di manutenzione con Ferrovie "
              "Campane, scaduto a giugno 2024 e non rinnovato dopo la gara. Il contratto "
              "valeva circa 4 milioni di euro l'anno."),
    ])
    # Torino (.pdf, en): the cause is a new contract, on page 2
    write_pdf(docs / "torino_review_fy2025.pdf", [
        ["Lumen Torino: fiscal 2025 review", "",
         "Lumen Torino revenue grew in fiscal 2025, to EUR 36.9 million from EUR 30.5 million,",
         "and the operating margin rose to 12.4%. Lumen Torino had its best year so far.", "",
         _FILLER_EN[0][:88], _FILLER_EN[0][88:] + "",
         "", _FILLER_EN[1][:90], _FILLER_EN[1][90:]],
        ["Contracts", "",
         "Sales rose mainly thanks to the five-year supply contract with Alpina Rail for",
         "brake components, which started shipping in May 2024 and filled the second shift."],
    ])
    # Bari (.pptx, it): the cause is a port strike, on the third slide
    write_pptx(docs / "bari_esercizio_2025.pptx", [
        ("Lumen Bari: esercizio 2025",
         "I ricavi di Lumen Bari sono diminuiti nell'esercizio 2025, a 17,1 milioni di euro da "
         "19,6 milioni. Il margine operativo è rimasto vicino al 10%."),
        ("Persone", _FILLER_IT[1]),
        ("Logistica",
         "Le spedizioni sono state ridotte a causa dello sciopero di tre settimane al porto "
         "di Taranto, in ottobre 2024, che ha bloccato le consegne ai clienti esteri."),
    ])
    return root


# --- Harbor -------------------------------------------------------------------------------

HARBOR_GLOSSARY = """\
[scope]
default_entity = "HARBOR_GROUP"
fiscal_year_end = "09-30"
restricted_chats = []

[metrics.REVENUE]
names = ["revenue", "sales", "fatturato", "ricavi", "营收", "收入"]
unit = "USD_M"

[entities.HARBOR_GROUP]
names = ["Harbor Group", "Harbor", "Gruppo Harbor", "Harbor集团"]

[entities.HARBOR_US]
names = ["Harbor US", "Harbor USA", "Harbor Stati Uniti", "Harbor美国"]
parent = "HARBOR_GROUP"

[entities.HARBOR_CN]
names = ["Harbor China", "Harbor Cina", "Harbor中国", "上海工厂"]
parent = "HARBOR_GROUP"

[[documents]]
source = "harbor"
path = "docs"
restricted = false
"""


def harbor_facts() -> str:
    rows = [HEADER]
    rows.append("REVENUE,HARBOR_US,FY,2024,,212.0,USD_M,harbor_ar_2025.pdf,page=6")
    rows.append("REVENUE,HARBOR_US,FY,2025,,188.5,USD_M,harbor_ar_2025.pdf,page=6")
    return "\n".join(rows) + "\n"


def write_harbor(root: Path) -> Path:
    """Harbor's glossary, facts and documents under `root`; returns `root`."""
    docs = root / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (root / "glossary.toml").write_text(HARBOR_GLOSSARY, encoding="utf-8")
    (root / "facts.csv").write_text(harbor_facts(), encoding="utf-8")
    (docs / "harbor_china_2025_zh.md").write_text(
        "# Harbor中国2025财年经营回顾\n\n"
        "## 概览\n\n"
        "Harbor中国2025财年营收增长至10.2亿元人民币，上一财年为9.05亿元。Harbor中国仍是集团"
        "增长最快的业务。\n\n"
        "## 人员\n\n"
        "全年员工人数保持稳定，培训时长增加，安全指标继续改善，下半年没有发生工伤事故。\n\n"
        "## 投资\n\n"
        "资本开支主要用于设备维护和新的企业资源计划系统，该系统于十一月按期上线，未超预算。\n\n"
        "## 客户\n\n"
        "管理层每季度拜访主要客户，续签了覆盖大部分产量的框架协议，价格与能源和人工成本挂钩。\n\n"
        "## 增长来源\n\n"
        "营收增长主要是由于与远景能源签订的风电齿轮箱长期供货合同，该合同自2024年12月起"
        "开始交付，使工厂满负荷运转。\n",
        encoding="utf-8",
    )
    write_docx(docs / "harbor_us_review_2025.docx", [
        ("h1", "Harbor US: fiscal 2025 review"),
        ("p", "Harbor US revenue fell in fiscal 2025, to USD 188.5 million from USD 212.0 "
              "million. Harbor US is still the larger of the group's two units."),
        ("h1", "People"), ("p", _FILLER_EN[1]),
        ("h1", "Investment"), ("p", _FILLER_EN[2]),
        ("h1", "Customers"),
        ("p", "The decline was due to the loss of the Kestrel Foods packaging contract, which "
              "moved to a supplier in Mexico in January 2025."),
    ])
    return root


# Why-questions per company, with the phrase that gives the cause (the answer should quote it)
LUMEN_WHY = [
    ("Why did Lumen Milano revenue fall in FY2025?", "Brescia coating line"),
    ("Perché il fatturato di Lumen Napoli è calato nel 2025?", "Ferrovie Campane"),
    ("Why did Lumen Torino sales grow in fiscal 2025?", "Alpina Rail"),
    ("Perché i ricavi di Lumen Bari sono diminuiti nel 2025?", "porto di Taranto"),
]
HARBOR_WHY = [
    ("Harbor中国2025财年营收为什么增长？", "远景能源"),
    ("Why did Harbor US revenue fall in FY2025?", "Kestrel Foods"),
]
