"""Writes the second held-out test company, Vireo (bench/companies/vireo): facts and documents.

Written by the lead on 2026-12-03 (fourth session) after the first held-out company (Tessaro)
had been used to find bugs, so that the session's work is also measured on a company nobody
looked at while changing the rules: its questions were labelled from the data before any was
asked, and it was scored only before and after the session's branches were merged. A retailer
whose fiscal year ends in February, in Swiss francs, with monthly sales and footfall (no
quarterly rows: a quarter is the sum of its months), a restricted country, a rate
(like-for-like growth), a store count (a stock), and documents in English and Italian.

    python bench/companies/make_holdout2.py
"""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

from make_docs import write_documents
from make_facts import Table, fiscal_months, tenth

HERE = Path(__file__).resolve().parent
FOLDER = HERE / "vireo"
D = Decimal
G = "VIREO_GROUP"
UNITS = {"VIREO_CH": (52, 68), "VIREO_AT": (18, 26), "VIREO_DE": (30, 41)}  # DE restricted
LAST_MONTH = "2026-10"


def build(seed: int) -> Table:
    rng = random.Random(seed)
    t = Table()
    mr = "Vireo_Monthly_Trading.xlsx"
    sales: dict[tuple[str, str], Decimal] = {}
    visits: dict[tuple[str, str], Decimal] = {}
    for fy in (2025, 2026, 2027):
        months = [m for m in fiscal_months(fy, 2) if m <= LAST_MONTH]
        for m in months:
            for u, (lo, hi) in UNITS.items():
                sales[(u, m)] = tenth(rng, lo, hi)
                visits[(u, m)] = D(rng.randint(lo * 40, hi * 40))
            if m == "2025-12":  # the Zurich flagship's opening month (docs)
                sales[("VIREO_CH", m)] += D(9)
        for u in (*UNITS, G):
            def s(m: str, u: str = u) -> Decimal:
                return sum((sales[(x, m)] for x in UNITS), D(0)) if u == G else sales[(u, m)]

            def v(m: str, u: str = u) -> Decimal:
                return sum((visits[(x, m)] for x in UNITS), D(0)) if u == G else visits[(u, m)]

            for m in months:
                t.add("SALES", u, "M", m, s(m), "CHF_M", mr, f"sheet=Sales,row={u[6:]},col={m}")
                t.add("FOOTFALL", u, "M", m, v(m), "K_VISITS", mr,
                      f"sheet=Footfall,row={u[6:]},col={m}")
            if len(months) == 12:
                ar = f"Vireo_Annual_Report_FY{fy}.pdf"
                t.add("SALES", u, "FY", str(fy), sum((s(m) for m in months), D(0)), "CHF_M", ar,
                      "page=7,table=1")
    for fy in (2024, 2025, 2026):
        ar = f"Vireo_Annual_Report_FY{fy}.pdf"
        stores = {"VIREO_CH": rng.randint(38, 46), "VIREO_AT": rng.randint(14, 19),
                  "VIREO_DE": rng.randint(20, 27)}
        ebit = {"VIREO_CH": tenth(rng, 48, 70), "VIREO_AT": tenth(rng, 12, 22),
                "VIREO_DE": tenth(rng, 15, 30)}
        if fy == 2026:
            ebit["VIREO_AT"] = tenth(rng, 5, 9)  # the Graz warehouse fire (docs)
        for u in UNITS:
            t.add("STORES", u, "FY", str(fy), D(stores[u]), "STORES", ar, "page=3,table=1")
            t.add("EBIT", u, "FY", str(fy), ebit[u], "CHF_M", ar, "page=11,table=3")
            t.add("LFL_GROWTH", u, "FY", str(fy), tenth(rng, -4, 6), "PCT", ar, "page=8,table=2")
        t.add("STORES", G, "FY", str(fy), D(sum(stores.values())), "STORES", ar,
              "page=3,table=1,row=group")
        t.add("EBIT", G, "FY", str(fy), sum(ebit.values(), D(0)) - tenth(rng, 14, 19), "CHF_M",
              ar, "page=11,table=3,row=group")
        t.add("LFL_GROWTH", G, "FY", str(fy), tenth(rng, -2, 4), "PCT", ar,
              "page=8,table=2,row=group")
        t.add("LEASES", G, "FY", str(fy), D(rng.randint(182000, 241000)), "CHF_K", ar,
              "page=52,note=18")
    return t


def claims(t: Table) -> bool:
    rows = {(r[0], r[1], r[3]): D(r[5]) for r in t.rows if not r[4]}
    dec = [rows[("SALES", "VIREO_CH", m)] for m in fiscal_months(2026, 2)]
    return (rows[("EBIT", "VIREO_AT", "2026")] < rows[("EBIT", "VIREO_AT", "2025")]
            and max(dec) == rows[("SALES", "VIREO_CH", "2025-12")])


MD = {
    "austria_ebit_fy2026.md": """# Vireo Austria: EBIT in fiscal 2026

EBIT in Austria fell sharply in the fiscal year to February 2026, while sales were close to
the year before and like-for-like growth stayed positive in most months.

## Stores

Two stores were refitted in Vienna and one in Linz; no store was closed.

## What hit profit

Most of the drop stems from the fire at the Graz warehouse in August 2025: stock had to be
written off and stores were supplied from Switzerland for four months at a higher cost.
""",
    "svizzera_dicembre_it.md": """# Vireo Svizzera: vendite di dicembre 2025

Dicembre 2025 è stato il mese con le vendite più alte dell'esercizio in Svizzera, sopra il
piano e sopra lo stesso mese dell'anno prima.

## Traffico

Le visite nei negozi sono cresciute in tutte le regioni, soprattutto nei fine settimana.

## Il motivo

Il picco è dovuto soprattutto all'apertura del nuovo flagship di Zurigo in Bahnhofstrasse, il
5 dicembre, che da solo ha venduto per circa 9 milioni di franchi nel mese.
""",
    "restricted/germany_review.md": """# Board only: Vireo Germany strategic review

The board is considering the sale of the German stores; the advisers' report is due in March.
""",
}
DOCX = [("footfall_fy2027_h1.docx", "Vireo footfall, first half of fiscal 2027", [
    ("", "Footfall across Vireo's stores was broadly stable in the first half of fiscal 2027 "
         "(March to August 2026), with Switzerland up slightly and Austria down."),
    ("Austria", "In Austria visits fell in June and July as a result of the roadworks on "
                "Mariahilfer Strasse, which closed the street to pedestrians for nine weeks."),
])]


def main() -> None:
    seed = 0
    while not claims(table := build(seed)):
        seed += 1
    FOLDER.mkdir(exist_ok=True)
    table.write(FOLDER / "facts.csv")
    print(f"vireo: {len(table.rows)} rows (seed {seed})")
    write_documents(FOLDER / "docs", MD, docx=DOCX)
    print("vireo: documents written")


if __name__ == "__main__":
    main()
