"""Writes the test companies' .docx, .pdf and .pptx documents (bench/companies/*/docs/).

Each document explains a change and gives its REASON (a named plant, customer, port or
contract) in a later paragraph, not in the opening summary: the question set asks "why" and
checks that the quoted passage holds that name. The texts live here; the small generated files
are committed too, so the bench needs none of these libraries at run time.

    python bench/companies/make_docs.py

PDFs are drawn with matplotlib's PDF backend (TrueType text, so it can be extracted).
"""

from __future__ import annotations

import datetime
import textwrap
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (path, title, [(heading or "", paragraph), ...]); the first paragraph is the summary
Table = Sequence[tuple[str, str, list[tuple[str, str]]]]
DOCX = [
    ("alpina/docs/ebitda_review_fy2025.docx", "Alpina Group EBITDA review, FY2025", [
        ("", "Alpina Group EBITDA fell in FY2025 (April 2024 to March 2025) although revenue "
             "grew in all three countries. Alpina Italia's EBITDA was the main drag; Germany and "
             "Austria were close to plan."),
        ("Costs", "Raw milk prices were stable over the year and energy costs fell in the "
                  "second half. Logistics costs rose slightly with fuel surcharges."),
        ("Cause", "The main cause was the unplanned shutdown of the Bolzano dairy plant for "
                  "eleven weeks after the flood of October 2024: production was moved to the "
                  "Trento site at a higher cost, and the Bolzano lines restarted only in "
                  "January 2025. Insurance recoveries are expected in FY2026."),
    ]),
    ("meridian/docs/us_revenue_review_fy2026.docx", "Meridian US revenue review, FY2026", [
        ("", "Meridian US revenue rose in FY2026 (October 2025 to September 2026), the fastest "
             "growth of any unit in the Americas. Volumes grew on both coasts."),
        ("Pricing", "Contract rates were renewed at similar levels; spot rates softened in the "
                    "second half."),
        ("Why revenue rose", "The increase came from the five-year contract with Calloway Home "
                             "Stores signed in November 2025, which moved Calloway's imports "
                             "through Long Beach and Savannah to Meridian from January 2026."),
    ]),
    ("kestrel/docs/nz_store_closures.docx", "Kestrel New Zealand store network, FY2026", [
        ("", "Kestrel New Zealand ended FY2026 with fewer stores than a year earlier. Sales per "
             "store improved and the online share in New Zealand rose."),
        ("Network plan", "Two new stores are planned for FY2027 in Christchurch and Hamilton, "
                         "subject to lease negotiations."),
        ("Reasons for the closures", "The closures followed the lease expiry at the Harbourside "
                                     "Plaza centre in Wellington, where the landlord redeveloped "
                                     "the site, and the merger of two Auckland stores into the "
                                     "new Newmarket flagship."),
    ]),
]

PDF = [
    ("alpina/docs/austria_update_fy2025.pdf", "Alpina Austria trading update, FY2025", [
        ("", "Alpina Austria's revenue grew strongly in FY2025 (April 2024 to March 2025) and "
             "Austria was the fastest-growing unit of the group. Gross margin held steady."),
        ("Products", "Yoghurt and fresh cheese led the growth; butter volumes were flat."),
        ("Drivers", "The growth came from a new listing agreement with the retailer Hofer-Markt, "
                    "signed in May 2024, which put Alpina's yoghurt range in 320 Hofer-Markt "
                    "stores across Austria."),
    ]),
    ("meridian/docs/singapore_margin_note.pdf", "Meridian Singapore operating margin, FY2026", [
        ("", "Meridian Singapore's operating margin was lower in FY2026 than in FY2025, while "
             "its revenue kept growing."),
        ("Volumes", "Transhipment volumes rose with new Asia-Europe services."),
        ("Why the margin fell", "The margin fell because of the one-off costs of relocating "
                                "operations from Pasir Panjang to the Tuas Mega Port terminal: "
                                "double running of both sites for four months and the "
                                "retraining of crane operators."),
    ]),
    ("kestrel/docs/margine_lordo_fy2026_it.pdf", "Kestrel: margine lordo FY2026", [
        ("", "Il margine lordo di Kestrel Australia è sceso nell'esercizio 2026 (luglio 2025 – "
             "giugno 2026), mentre le vendite sono cresciute. La Nuova Zelanda ha tenuto il "
             "margine."),
        ("Prezzi", "I prezzi di listino sono stati aumentati in media del 2% a settembre 2025."),
        ("Le cause", "Il calo è dovuto alla svalutazione delle scorte di tende della linea "
                     "Alpine Pro dopo il richiamo di marzo 2026 per un difetto delle cuciture, "
                     "e agli sconti di fine stagione più alti del previsto."),
    ]),
]

PPTX = [
    ("alpina/docs/investor_day_2025.pptx", "Alpina Investor Day 2025", [
        ("Marketing", "Marketing expenses rose in FY2025 in every country, most in Italy."),
        ("Brands", "Market share in fresh milk stable; yoghurt gained share in Austria."),
        ("Why marketing rose", "The increase paid for the relaunch campaign of the 'Latte di "
                               "Montagna' brand on television and in stores, from September "
                               "2024."),
    ]),
    ("meridian/docs/group_results_fy2026.pptx", "Meridian Group results FY2026", [
        ("Highlights", "Group revenue grew in FY2026; group EBITDA fell slightly."),
        ("Regions", "Americas and Asia-Pacific both grew their revenue."),
        ("Central costs", "Group EBITDA fell because central costs rose with the Atlas ERP "
                          "programme, which replaced the group's finance and booking systems "
                          "in all four countries."),
    ]),
    ("meridian/docs/restricted/mexico_disposal.pptx", "Project Sierra: Meridian Mexico", [
        ("Status", "Confidential: talks on the sale of Meridian Mexico are at an advanced stage."),
        ("Buyer", "The preferred bidder is Grupo Transvalle; signing is expected in Q2 FY2027."),
    ]),
    ("kestrel/docs/cases_logistics_h2.pptx", "Kestrel logistics review, H2 FY2026", [
        ("Cases shipped", "Cases shipped from the distribution centres rose in H2 FY2026 "
                          "against H1."),
        ("Service", "On-time in-full stayed above 96% in both countries."),
        ("Why volumes rose", "The rise came from the supply contract with the Trailhead Co-op "
                             "buying group, whose 85 independent outdoor stores Kestrel has "
                             "supplied since January 2026."),
    ]),
]


def write_docx(path: Path, title: str, parts: list[tuple[str, str]]) -> None:
    import docx

    doc = docx.Document()
    fixed = datetime.datetime(2026, 1, 1)  # a fixed date: the same file every run
    doc.core_properties.created = doc.core_properties.modified = fixed
    doc.add_heading(title, level=1)
    for heading, text in parts:
        if heading:
            doc.add_heading(heading, level=2)
        doc.add_paragraph(text)
    doc.save(str(path))


def write_pdf(path: Path, title: str, parts: list[tuple[str, str]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["pdf.fonttype"] = 42  # TrueType: extractable text
    from matplotlib.backends.backend_pdf import PdfPages
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.27, 11.69))
    y = 0.94
    fig.text(0.08, y, title, fontsize=15, weight="bold")
    y -= 0.05
    for heading, text in parts:
        if heading:
            fig.text(0.08, y, heading, fontsize=12, weight="bold")
            y -= 0.03
        for line in textwrap.wrap(text, 88):
            fig.text(0.08, y, line, fontsize=10)
            y -= 0.022
        y -= 0.02
    with PdfPages(path, metadata={"CreationDate": None, "ModDate": None}) as pdf:
        pdf.savefig(fig)


def write_pptx(path: Path, title: str, parts: list[tuple[str, str]]) -> None:
    from pptx import Presentation

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[0])
    slide.shapes.title.text = title
    for heading, text in parts:
        s = prs.slides.add_slide(prs.slide_layouts[1])
        s.shapes.title.text = heading
        s.placeholders[1].text = text
    prs.save(str(path))


def write_documents(folder: Path, texts: dict[str, str], *, docx: Table = (), pdf: Table = (),
                    pptx: Table = ()) -> None:
    """A company's documents under `folder`: Markdown `texts` by relative path, and the
    generated .docx, .pdf and .pptx (the held-out companies' generators use it)."""
    for rel, text in texts.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for table, write in ((docx, write_docx), (pdf, write_pdf), (pptx, write_pptx)):
        for rel, title, parts in table:
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            write(path, title, parts)


def main() -> None:
    write_documents(HERE, {}, docx=DOCX, pdf=PDF, pptx=PPTX)
    for rel, _, _ in (*DOCX, *PDF, *PPTX):
        print(f"wrote {rel} ({(HERE / rel).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
