"""Writes the held-out test company, Tessaro (bench/companies/tessaro): facts and documents.

Tessaro is the company nobody tuned the rules on: written by the lead on 2026-12-03 (fourth
session) from README's "Your own data in ten minutes", its questions labelled from the data
before any of them was asked, and scored before and after that session's understanding work
without changing a rule for it. Its shape differs from the other three companies: a calendar
fiscal year, pounds sterling, quarterly figures (monthly only for orders), a three-level
hierarchy (group > division > site) whose restricted site reports yearly figures only, a custom
unit (thousand square metres of fabric), and documents in English and Italian (.md, .docx, .pdf,
.pptx) that give the reason for a change after their opening summary.

    python bench/companies/make_holdout.py
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

from make_docs import write_documents
from make_facts import Table, tenth

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "tessaro"
D = Decimal

G, FURN, TEXT = "TESSARO_GROUP", "TESSARO_FURNITURE", "TESSARO_TEXTILES"
SITES = {"TESSARO_LEEDS": FURN, "TESSARO_CORK": FURN, "TESSARO_BRADFORD": TEXT,
         "TESSARO_PORTO": TEXT}
QUARTERLY = ("TESSARO_LEEDS", "TESSARO_CORK", "TESSARO_BRADFORD")  # Porto: years only
QUARTERS = [f"{y}Q{q}" for y in (2024, 2025) for q in (1, 2, 3, 4)] + ["2026Q1", "2026Q2",
                                                                        "2026Q3"]
MONTHS = [f"{y}-{m:02d}" for y in (2025, 2026) for m in range(1, 13)
          if f"{y}-{m:02d}" <= "2026-10"]


def build(seed: int) -> Table:
    rng = random.Random(seed)
    t = Table()
    mr = "Tessaro_Management_Report.xlsx"
    ar = {fy: f"Tessaro_Annual_Report_{fy}.pdf" for fy in (2023, 2024, 2025)}
    # revenue: quarterly per quarterly site; Porto yearly; divisions and group quarterly too
    # (the management report holds Porto's quarters, the fact table does not)
    q_rev = {(s, q): tenth(rng, *{"TESSARO_LEEDS": (38, 52), "TESSARO_CORK": (14, 21),
                                  "TESSARO_BRADFORD": (22, 30)}[s])
             for s in QUARTERLY for q in QUARTERS}
    porto_q = {q: tenth(rng, 9, 14) for q in QUARTERS}
    # Cork lost a contract in 2025: its 2025 quarters are lower than 2024's
    for q in ("2025Q2", "2025Q3", "2025Q4"):
        q_rev[("TESSARO_CORK", q)] -= D(4)
    for s in QUARTERLY:
        for q in QUARTERS:
            t.add("REVENUE", s, "Q", q, q_rev[(s, q)], "GBP_M", mr,
                  f"sheet=Quarterly,row=REVENUE {s[8:]},col={q}")
    div_q = {(FURN, q): q_rev[("TESSARO_LEEDS", q)] + q_rev[("TESSARO_CORK", q)]
             for q in QUARTERS}
    div_q.update({(TEXT, q): q_rev[("TESSARO_BRADFORD", q)] + porto_q[q] for q in QUARTERS})
    for q in QUARTERS:
        for d in (FURN, TEXT):
            t.add("REVENUE", d, "Q", q, div_q[(d, q)], "GBP_M", mr,
                  f"sheet=Quarterly,row=REVENUE {d[8:]},col={q}")
        t.add("REVENUE", G, "Q", q, div_q[(FURN, q)] + div_q[(TEXT, q)], "GBP_M", mr,
              f"sheet=Quarterly,row=REVENUE GROUP,col={q}")
    for fy in (2024, 2025):
        qs = [f"{fy}Q{i}" for i in (1, 2, 3, 4)]
        yearly = {s: sum((q_rev[(s, q)] for q in qs), D(0)) for s in QUARTERLY}
        yearly["TESSARO_PORTO"] = sum((porto_q[q] for q in qs), D(0))
        yearly[FURN] = sum((div_q[(FURN, q)] for q in qs), D(0))
        yearly[TEXT] = sum((div_q[(TEXT, q)] for q in qs), D(0))
        yearly[G] = yearly[FURN] + yearly[TEXT]
        for e, v in yearly.items():
            t.add("REVENUE", e, "FY", str(fy), v, "GBP_M", ar[fy], "page=9,table=2")
    old = {"TESSARO_LEEDS": tenth(rng, 150, 200), "TESSARO_CORK": tenth(rng, 70, 80),
           "TESSARO_BRADFORD": tenth(rng, 90, 115), "TESSARO_PORTO": tenth(rng, 38, 55)}
    old[FURN] = old["TESSARO_LEEDS"] + old["TESSARO_CORK"]
    old[TEXT] = old["TESSARO_BRADFORD"] + old["TESSARO_PORTO"]
    old[G] = old[FURN] + old[TEXT]
    for e, v in old.items():
        t.add("REVENUE", e, "FY", "2023", v, "GBP_M", ar[2023], "page=9,table=2")
    # revenue by channel (furniture only), yearly
    for fy in (2024, 2025):
        for s in ("TESSARO_LEEDS", "TESSARO_CORK"):
            total = sum((q_rev[(s, f"{fy}Q{i}")] for i in (1, 2, 3, 4)), D(0))
            contract = (total * D(rng.randint(28, 41)) / 100).quantize(D("0.1"))
            t.add("REVENUE", s, "FY", str(fy), total - contract, "GBP_M", ar[fy],
                  "page=10,table=3", "RETAIL")
            t.add("REVENUE", s, "FY", str(fy), contract, "GBP_M", ar[fy], "page=10,table=3",
                  "CONTRACT")
    for fy in (2023, 2024, 2025):
        doc = ar[fy]
        op = {"TESSARO_LEEDS": tenth(rng, 14, 22), "TESSARO_CORK": tenth(rng, 4, 8),
              "TESSARO_BRADFORD": tenth(rng, 6, 11), "TESSARO_PORTO": tenth(rng, 2, 5)}
        central = tenth(rng, 6, 8) + (D(3) if fy == 2025 else D(0))  # Project Loom in 2025
        for s, v in op.items():
            t.add("OPERATING_PROFIT", s, "FY", str(fy), v, "GBP_M", doc, "page=12,table=4")
        t.add("OPERATING_PROFIT", FURN, "FY", str(fy), op["TESSARO_LEEDS"] + op["TESSARO_CORK"],
              "GBP_M", doc, "page=12,table=4,row=division")
        t.add("OPERATING_PROFIT", TEXT, "FY", str(fy),
              op["TESSARO_BRADFORD"] + op["TESSARO_PORTO"], "GBP_M", doc,
              "page=12,table=4,row=division")
        t.add("OPERATING_PROFIT", G, "FY", str(fy), sum(op.values(), D(0)) - central, "GBP_M",
              doc, "page=12,table=4,row=group")
        margins = {"TESSARO_LEEDS": (40, 47), "TESSARO_CORK": (36, 44),
                   "TESSARO_BRADFORD": (29, 36), "TESSARO_PORTO": (25, 33), FURN: (38, 45),
                   TEXT: (28, 34), G: (35, 41)}
        for e, (lo, hi) in margins.items():
            v = tenth(rng, lo, hi)
            if e == "TESSARO_BRADFORD" and fy == 2025:
                v = tenth(rng, 24, 27)  # the yarn price rise (docs: bradford_margine_2025_it)
            t.add("GROSS_MARGIN", e, "FY", str(fy), v, "PCT", doc, "page=13,table=5")
        hc = {"TESSARO_LEEDS": rng.randint(610, 700), "TESSARO_CORK": rng.randint(230, 280),
              "TESSARO_BRADFORD": rng.randint(380, 450), "TESSARO_PORTO": rng.randint(150, 190)}
        for s, v in hc.items():
            t.add("HEADCOUNT", s, "FY", str(fy), D(v), "FTE", doc, "page=31,table=1")
        t.add("HEADCOUNT", FURN, "FY", str(fy), D(hc["TESSARO_LEEDS"] + hc["TESSARO_CORK"]),
              "FTE", doc, "page=31,table=1,row=division")
        t.add("HEADCOUNT", TEXT, "FY", str(fy),
              D(hc["TESSARO_BRADFORD"] + hc["TESSARO_PORTO"]), "FTE", doc,
              "page=31,table=1,row=division")
        t.add("HEADCOUNT", G, "FY", str(fy), D(sum(hc.values()) + rng.randint(70, 95)), "FTE",
              doc, "page=31,table=1,row=group")
        t.add("INVENTORIES", G, "FY", str(fy), D(rng.randint(41000, 56000)), "GBP_K", doc,
              "page=48,note=15")
        t.add("CAPEX", G, "FY", str(fy), D(rng.randint(9000, 16000)), "GBP_K", doc,
              "page=46,statement=cash-flows")
    # orders: monthly for the furniture sites; the division as their sum
    orders = {(s, m): D(rng.randint(*{"TESSARO_LEEDS": (2100, 2900),
                                      "TESSARO_CORK": (700, 1100)}[s]))
              for s in ("TESSARO_LEEDS", "TESSARO_CORK") for m in MONTHS}
    orders[("TESSARO_LEEDS", "2026-03")] = D(3412)  # the Brightwell catalogue (docs)
    om = "Tessaro_Order_Book.xlsx"
    for m in MONTHS:
        for s in ("TESSARO_LEEDS", "TESSARO_CORK"):
            t.add("ORDERS", s, "M", m, orders[(s, m)], "ORDERS", om,
                  f"sheet=Orders,row={s[8:]},col={m}")
        t.add("ORDERS", FURN, "M", m, orders[("TESSARO_LEEDS", m)] + orders[("TESSARO_CORK", m)],
              "ORDERS", om, f"sheet=Orders,row=FURNITURE,col={m}")
    # fabric woven at Bradford: quarterly, thousand square metres
    for q in QUARTERS[4:]:
        t.add("FABRIC", "TESSARO_BRADFORD", "Q", q, tenth(rng, 310, 420), "K_SQM", mr,
              f"sheet=Mill,row=FABRIC,col={q}")
    return t


def claims(t: Table) -> bool:
    """What the documents say holds in the figures."""
    rows = {(r[0], r[1], r[3], r[4] or "TOTAL"): D(r[5]) for r in t.rows}
    return (rows[("REVENUE", "TESSARO_CORK", "2025", "TOTAL")]
            < rows[("REVENUE", "TESSARO_CORK", "2024", "TOTAL")]
            and rows[("OPERATING_PROFIT", G, "2025", "TOTAL")]
            < rows[("OPERATING_PROFIT", G, "2024", "TOTAL")]
            and rows[("GROSS_MARGIN", "TESSARO_BRADFORD", "2025", "TOTAL")]
            < rows[("GROSS_MARGIN", "TESSARO_BRADFORD", "2024", "TOTAL")])


MD = {
    "cork_revenue_2025.md": """# Tessaro Cork: revenue in 2025

Revenue at the Cork site fell in 2025 compared with 2024, after three years of growth. Retail
sales through the Irish showrooms were broadly stable over the year, and the site kept its
margin close to the division's average.

## Showrooms

The Dublin and Galway showrooms were refitted in the spring; footfall recovered by the summer
and average order value rose slightly.

## What happened to contract sales

The fall came from contract sales: the framework contract with Dunmore Hotels, which furnished
the chain's new openings, ended in March 2025 and was not renewed, removing about £4M of
revenue a quarter from the second quarter on.
""",
    "restricted/porto_sale.md": """# Project Azulejo: Tessaro Porto

Board only. Talks to sell the Porto dye-house continue; the bidder has asked for the 2025
accounts of the site.
""",
}
DOCX = [("bradford_margine_2025_it.docx", "Tessaro Bradford: margine lordo 2025", [
    ("", "Il margine lordo dello stabilimento di Bradford è sceso nel 2025 rispetto al 2024. "
         "I volumi di tessuto sono rimasti in linea con il piano e i prezzi di vendita sono "
         "stati aumentati due volte nel corso dell'anno."),
    ("Volumi", "La produzione di tessuto è stata stabile per tutto l'anno; il nuovo telaio è "
               "entrato in servizio a giugno."),
    ("Le cause", "Il calo è dovuto al rincaro del filato di cotone acquistato dal fornitore "
                 "Kafr Mills, il cui prezzo è salito del 18% da febbraio, solo in parte "
                 "trasferito ai clienti."),
])]
PDF = [("leeds_orders_2026.pdf", "Tessaro Leeds order book, first half of 2026", [
    ("", "Orders at the Leeds site were strong in the first half of 2026, with the order book "
         "above plan in every month except January."),
    ("Lead times", "Average delivery lead times fell to five weeks as the new finishing line "
                   "came into service."),
    ("Why March peaked", "March 2026 was the busiest month in the site's history because of "
                         "the Brightwell catalogue partnership: the retailer's spring catalogue "
                         "featured twelve Tessaro sofas and sent its orders straight to Leeds."),
])]
PPTX = [("group_results_2025.pptx", "Tessaro Group results 2025", [
    ("Summary", "Group operating profit fell in 2025, although the sites' own operating "
                "profit held up."),
    ("Sites", "Leeds and Bradford grew their revenue; Cork lost a hotel contract."),
    ("Central costs", "Central costs rose by about £3M because of Project Loom, the new group "
                      "ERP system, which went live in October 2025."),
])]


def main() -> None:
    seed = 0
    while not claims(table := build(seed)):
        seed += 1
    FOLDER.mkdir(exist_ok=True)
    table.write(FOLDER / "facts.csv")
    print(f"tessaro: {len(table.rows)} rows (seed {seed})")
    write_documents(FOLDER / "docs", MD, docx=DOCX, pdf=PDF, pptx=PPTX)
    print("tessaro: documents written")


if __name__ == "__main__":
    main()
