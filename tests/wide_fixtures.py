"""A small company whose figures live where finance keeps them: a report workbook with two
sheets (line items down, periods across; in thousands; parentheses; dated headers; sub-totals
and section headings; footnote markers) and the same figures as rows of a database table.

Exact values, so a test can ask and compare: REVENUE FY2019 = 1,234 USD_K = 1.234 USD_M.
"""

from __future__ import annotations

from pathlib import Path

GLOSSARY = '''[scope]
default_entity = "WIDGETCO"
fiscal_year_end = "12-31"

[metrics.REVENUE]
names = ["revenue", "ricavi", "营收"]
unit = "USD_M"

[metrics.COST_OF_SALES]
names = ["cost of sales", "costo del venduto"]
unit = "USD_M"

[metrics.GROSS_PROFIT]
names = ["gross profit", "utile lordo"]
unit = "USD_M"

[metrics.NET_INCOME]
names = ["net income", "utile netto"]
unit = "USD_M"

[metrics.HEADCOUNT]
names = ["headcount", "employees", "dipendenti"]
unit = "FTE"

[metrics.GROSS_MARGIN]
names = ["gross margin", "margine lordo"]
unit = "PCT"

[metrics.CASH]
names = ["cash", "cassa"]
unit = "USD_M"

[entities.WIDGETCO]
names = ["WidgetCo"]
'''

REPORT_DECLARATION = '''
[[facts]]
file = "report.xlsx"
sheet = "Income statement"
unit = "USD"
[facts.metrics]                       # row label = metric code
"Revenue" = "REVENUE"
"Cost of sales" = "COST_OF_SALES"
"Gross profit" = "GROSS_PROFIT"
"Net income (loss)" = "NET_INCOME"
"Employees" = { metric = "HEADCOUNT", unit = "FTE" }
"Gross margin" = "GROSS_MARGIN"

[[facts]]
file = "report.xlsx"
sheet = "Balance sheet"
unit = "USD_M"
header_row = 3
metrics = { "Cash and equivalents" = "CASH" }
'''

# the figures as the report states them: (metric, period, value as stored, in the metric's unit)
EXPECTED = {
    ("REVENUE", "2019"): "1.234", ("REVENUE", "2018"): "1.1005",
    ("COST_OF_SALES", "2019"): "-0.8", ("COST_OF_SALES", "2018"): "-0.75",
    ("GROSS_PROFIT", "2019"): "0.434", ("GROSS_PROFIT", "2018"): "0.3505",
    ("NET_INCOME", "2019"): "-0.012",
    ("HEADCOUNT", "2019"): "120", ("HEADCOUNT", "2018"): "110",
    ("GROSS_MARGIN", "2019"): "35.17", ("GROSS_MARGIN", "2018"): "31.85",
    ("CASH", "2019"): "45.6", ("CASH", "2018"): "40.1",
}


def write_report(folder: Path) -> Path:
    """report.xlsx: "Income statement" (in thousands, dated headers, parentheses, a section
    heading, a sub-total, a blank row, a dash for no figure, footnote markers) and "Balance
    sheet" (in millions, headers on row 3, "As at" dates)."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Income statement"
    rows = [
        ["WidgetCo consolidated income statement (in thousands of USD)", None, None, None],
        [None, "Year ended 31 December 2019", "Year ended 31 December 2018 (1)", "% change"],
        ["Revenue", 1234, "1,100.5", "12%"],
        ["Cost of sales", "(800)", "(750)", None],
        ["Gross profit", 434, 350.5, None],
        [None, None, None, None],
        ["Operating expenses", None, None, None],
        ["Selling", 300, 280, None],
        ["Total", 446, 360.5, None],
        ["Net income (loss) *", "(12)", "—", None],
        ["Employees", 120, 110, None],
        ["Gross margin", 0.3517, 0.3185, None],  # shown as 35.17%: a percentage, in PCT
    ]
    for row in rows:
        ws.append(row)
    for cell in ("B12", "C12"):
        ws[cell].number_format = "0.00%"
    bs = wb.create_sheet("Balance sheet")
    bs.append(["WidgetCo balance sheet"])
    bs.append(["USD millions"])
    bs.append(["", "As at 31 December 2019", "As at 31 December 2018"])
    bs.append(["Cash and equivalents", 45.6, 40.1])
    path = folder / "report.xlsx"
    wb.save(path)
    return path


def write_docx_report(folder: Path, *, merged_header: bool = False) -> Path:
    """review.docx: a paragraph, a small first table, then the income statement as its second
    table (in thousands, parentheses, a dash, a heading row)."""
    import docx

    document = docx.Document()
    document.add_paragraph("WidgetCo annual review. All figures in thousands of USD.")
    first = document.add_table(rows=2, cols=2)
    first.cell(0, 0).text, first.cell(0, 1).text = "Office", "City"
    first.cell(1, 0).text, first.cell(1, 1).text = "HQ", "Milan"
    rows = [["", "FY2019", "FY2018"], ["Revenue", "1,234", "1,100.5"],
            ["Cost of sales", "(800)", "(750)"], ["Net income (loss)", "(12)", "—"]]
    table = document.add_table(rows=len(rows), cols=3)
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    if merged_header:
        table.cell(0, 1).merge(table.cell(0, 2))
    path = folder / "review.docx"
    document.save(str(path))
    return path
