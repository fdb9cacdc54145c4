"""Facts where they live (issue 37): a report workbook as it is, a TAT-QA-like table in a CSV,
and the same figures through a SQL query (SQLite and PostgreSQL for real), each declared in the
glossary with `[[facts]]` and answered with cell- or row-level citations; a changed database
row appears after `ricorda ingest`; a bad source says why and loses nothing loaded before;
the database URL's password never appears. Through the CLI in a subprocess (tests.test_cli)."""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.contracts.types import Period, PeriodType
from core.knowledge.wide_tables import figure_text, header_period
from tests.test_cli import ricorda
from tests.wide_fixtures import EXPECTED, GLOSSARY, REPORT_DECLARATION, write_report

PASSWORD = "Hunter2-s3cret"
NAMES = {"REVENUE": "revenue", "COST_OF_SALES": "cost of sales", "GROSS_PROFIT": "gross profit",
         "NET_INCOME": "net income", "HEADCOUNT": "headcount", "CASH": "cash",
         "GROSS_MARGIN": "gross margin"}


def _ask(data: Path, metric: str, year: str, env: dict[str, str] | None = None) -> dict:
    out = ricorda(data, "ask", f"What was WidgetCo {NAMES[metric]} in FY{year}?", "--json",
                  env=env)
    facts = json.loads(out.stdout)["facts"]
    assert len(facts) == 1, out.stdout
    return facts[0]


def _answers(data: Path, env: dict[str, str] | None = None) -> dict[tuple[str, str], str]:
    return {key: _ask(data, *key, env=env)["value_exact"] for key in EXPECTED}


# -- a report workbook as finance keeps it ---------------------------------------------------


def test_a_wide_workbook_with_two_sheets_answers_with_cell_citations(tmp_path: Path) -> None:
    write_report(tmp_path)
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + REPORT_DECLARATION)
    data = tmp_path / "data"
    checked = ricorda(data, "check", str(glossary))
    assert "0 errors" in checked.stdout, checked.stdout
    assert "source report.xlsx [Balance sheet]: 1 rows, 2 figures of CASH; FY2018–FY2019" \
        in checked.stdout
    out = ricorda(data, "ingest", str(glossary)).stdout
    assert "facts report.xlsx [Income statement]: 8 rows read, 11 new" in out, out
    assert "facts report.xlsx [Balance sheet]: 1 rows read, 2 new" in out, out
    assert "header '% change' is not a period" in out  # said, not loaded
    assert _answers(data) == EXPECTED  # thousands converted exactly; (800) negative; — none
    revenue = _ask(data, "REVENUE", "2019")
    assert revenue["source"] == {"doc": "report.xlsx", "locator": "sheet=Income statement;"
                                 "row=Revenue;col=Year ended 31 December 2019;cell=B3"}
    cash = _ask(data, "CASH", "2018")["source"]["locator"]
    assert cash == "sheet=Balance sheet;row=Cash and equivalents;col=As at 31 December 2018;" \
                   "cell=C4"
    text = ricorda(data, "ask", "What was WidgetCo revenue in FY2019?").stdout
    assert "$1.234M" in text and "sheet Income statement" in text and "cell B3" in text, text
    italian = ricorda(data, "ask", "Qual è stato l'utile netto di WidgetCo nel FY2019?").stdout
    assert "cella B10" in italian and "foglio Income statement" in italian, italian
    # "Total" under "Operating expenses" and "Selling" are not mapped: not loaded
    none = ricorda(data, "ask", "What was WidgetCo net income in FY2018?").stdout
    assert "-0.0" not in none and "$" not in none.splitlines()[0], none


TATQA = '''"(In thousands, except per-share data)",,
,2019,2018
Revenue,"$ 52,000","$ 48,500"
Cost of revenue,"(31,200)","(29,100)"
Gross profit (1),"20,800","19,400"
,,
Operating expenses,,
Research and development,"5,100","4,900"
Total operating expenses,"12,300","11,800"
'''


def test_a_tatqa_like_table_loads_with_a_three_line_declaration(tmp_path: Path) -> None:
    (tmp_path / "table.csv").write_text(TATQA)
    glossary = tmp_path / "glossary.toml"
    glossary.write_text('[scope]\ndefault_entity = "ACME"\n[entities.ACME]\nnames = ["Acme"]\n'
                        '[metrics.REVENUE]\nnames = ["revenue"]\nunit = "USD_K"\n'
                        '[metrics.GROSS_PROFIT]\nnames = ["gross profit"]\nunit = "USD_K"\n'
                        '\n[[facts]]\nfile = "table.csv"\nunit = "USD"\n')
    data = tmp_path / "data"
    out = ricorda(data, "ingest", str(glossary)).stdout
    assert "facts table.csv: 5 rows read, 4 new" in out, out
    assert "'Cost of revenue' (COST_OF_REVENUE)" in out  # no such metric: said, not loaded
    answer = json.loads(ricorda(data, "ask", "What was Acme gross profit in 2018?",
                                "--json").stdout)["facts"][0]
    assert answer["value_exact"] == "19400" and answer["unit"] == "USD_K"
    assert answer["source"]["locator"] == "row=Gross profit;col=2018;cell=C5"


def test_periods_down_the_rows_read_as_the_transpose(tmp_path: Path) -> None:
    (tmp_path / "by_year.csv").write_text("Year,Revenue,Headcount\nFY2023,10.5,40\n"
                                          "FY2024,(1.25),—\n")
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + '\n[[facts]]\nfile = "by_year.csv"\nunit = "USD_M"\n'
                        'periods = "rows"\n')
    data = tmp_path / "data"
    ricorda(data, "ingest", str(glossary))
    assert _ask(data, "REVENUE", "2024")["value_exact"] == "-1.25"
    head = _ask(data, "HEADCOUNT", "2023")
    assert (head["value_exact"], head["unit"]) == ("40", "FTE")  # its own unit, not USD_M
    assert head["source"]["locator"] == "row=Headcount;col=FY2023;cell=C2"


@pytest.mark.parametrize(("header", "period"), [
    ("2019", "FY 2019"), ("FY2019", "FY 2019"), ("FY19", "FY 2019"),
    ("Year ended 31 December 2019", "FY 2019"), ("Years Ended December 31, 2019", "FY 2019"),
    ("Q3 2024", "Q 2024Q3"), ("2024Q3", "Q 2024Q3"), ("3M 2024", "Q 2024Q1"),
    ("6M 2024", "HY 2024H1"), ("H2 2024", "HY 2024H2"), ("March 2024", "M 2024-03"),
    ("Three months ended 31 March 2024", "Q 2024Q1"), ("As at 31 December 2019 (a)", "FY 2019"),
])
def test_dated_and_fiscal_headers(header: str, period: str) -> None:
    kind, value = period.split()
    assert header_period(header, "12-31") == Period(PeriodType(kind), value)


def test_headers_against_a_june_year_end() -> None:
    assert header_period("Year ended 30 June 2019", "06-30") == Period(PeriodType.FY, "2019")
    assert header_period("Three months ended 31 March 2024", "06-30") == Period(
        PeriodType.Q, "2024Q3")
    assert "ends no fiscal year" in str(header_period("Year ended 30 June 2019", "12-31"))
    assert "not a period the fact table holds" in str(header_period("9M 2024", "12-31"))
    assert header_period("% change", "12-31") is None


@pytest.mark.parametrize(("cell", "read"), [
    ("(1,234)", "-1,234"), ("$ 1,234*", "1,234"), ("—", None), ("-", None), ("n/a", None),
    ("12.5%", "12.5"), (" (0.5) ", "-0.5"), ("1 234", "1234"), (12.5, 12.5), ("1,234²", "1,234"),
])
def test_figures_as_reports_write_them(cell: object, read: object) -> None:
    assert figure_text(cell) == read


# -- the same figures through a SQL query ----------------------------------------------------

UNITS = {"HEADCOUNT": "FTE", "GROSS_MARGIN": "PCT"}
ROWS = [(i, metric, "WIDGETCO", "FY", year, value, UNITS.get(metric, "USD_M"))
        for i, ((metric, year), value) in enumerate(sorted(EXPECTED.items()), start=1)]
QUERY = "SELECT id, metric, entity, period_type, period, value, unit FROM finance_facts"


def _fill(execute: object, placeholder: str) -> None:
    execute("CREATE TABLE finance_facts (id INTEGER PRIMARY KEY, metric TEXT, entity TEXT, "  # type: ignore[operator]
            "period_type TEXT, period TEXT, value NUMERIC(20, 6), unit TEXT)")
    for row in ROWS:
        execute(f"INSERT INTO finance_facts VALUES ({', '.join([placeholder] * 7)})", row)  # type: ignore[operator]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def finance_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, object]]:
    """(URL with a password where the database takes one, a function running one statement)."""
    if request.param == "sqlite":
        path = tmp_path / "finance.db"
        conn = sqlite3.connect(path)

        def run(sql: str, params: tuple = ()) -> None:
            conn.execute(sql, params)
            conn.commit()

        _fill(run, "?")
        yield f"sqlite:///{path}", run
        conn.close()
        return
    import psycopg

    from tests.conftest import _libpq_url, fresh_postgres_schema

    with fresh_postgres_schema("ricorda_src") as url:
        libpq = _libpq_url(url)
        with psycopg.connect(libpq, autocommit=True) as conn:
            def run(sql: str, params: tuple = ()) -> None:
                conn.execute(sql, params)

            _fill(run, "%s")
            yield libpq.replace("postgres@", f"postgres:{PASSWORD}@", 1), run


def _sql_glossary(folder: Path, query: str = QUERY, extra: str = "") -> Path:
    glossary = folder / "glossary.toml"
    glossary.write_text(GLOSSARY + f'\n[[facts]]\nsource = "finance"\nurl_env = "FIN_DB_URL"\n'
                        f'query = "{query}"\nkey = ["id"]\n{extra}')
    return glossary


def test_the_same_figures_through_a_query_answer_the_same_and_follow_a_changed_row(
        tmp_path: Path, finance_db: tuple[str, object]) -> None:
    url, run = finance_db
    env = {"FIN_DB_URL": url}
    data = tmp_path / "data"
    glossary = _sql_glossary(tmp_path)
    checked = ricorda(data, "check", str(glossary), env=env)
    assert "0 errors" in checked.stdout, checked.stdout
    out = ricorda(data, "ingest", str(glossary), env=env)
    assert "facts finance: 13 rows read, 13 new" in out.stdout, out.stdout
    assert _answers(data) == EXPECTED  # the same figures as the workbook's
    revenue = _ask(data, "REVENUE", "2019")
    id_ = next(r[0] for r in ROWS if r[1:3] == ("REVENUE", "WIDGETCO") and r[4] == "2019")
    assert revenue["source"] == {"doc": "finance", "locator": f"row=id {id_}"}
    run(f"UPDATE finance_facts SET value = 1.5 WHERE id = {id_}")  # type: ignore[operator]
    again = ricorda(data, "ingest", env=env)  # no paths: every declared source, reloaded
    assert "facts finance: 13 rows read, 0 new, 1 updated, 12 unchanged" in again.stdout
    assert _ask(data, "REVENUE", "2019")["value_exact"] == "1.5"
    for proc in (checked, out, again):
        assert PASSWORD not in proc.stdout + proc.stderr


def test_a_wide_query_result_reads_as_the_report(tmp_path: Path) -> None:
    path = tmp_path / "wide.db"
    with sqlite3.connect(path) as conn:
        conn.execute('CREATE TABLE pnl (line TEXT, "FY2019" TEXT, "FY2018" TEXT)')
        conn.executemany("INSERT INTO pnl VALUES (?, ?, ?)",
                         [("Revenue", "1,234", "1,100.5"), ("Cost of sales", "(800)", "(750)")])
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + '\n[[facts]]\nsource = "pnl"\nurl_env = "PNL_URL"\n'
                        'query = "SELECT line, FY2019, FY2018 FROM pnl"\nlayout = "wide"\n'
                        'unit = "USD_K"\n')
    data = tmp_path / "data"
    env = {"PNL_URL": f"sqlite:///{path}"}
    ricorda(data, "ingest", str(glossary), env=env)
    cost = _ask(data, "COST_OF_SALES", "2018")
    assert cost["value_exact"] == "-0.75"
    assert cost["source"] == {"doc": "pnl", "locator": "row=Cost of sales;col=FY2018"}


# -- bad sources: a clear message, nothing lost, no password ---------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


BAD = {
    "unreachable": ({"FIN_DB_URL": "postgresql://ricorda:{pw}@127.0.0.1:{port}/finance"}, QUERY,
                    "cannot connect to the database in FIN_DB_URL"),
    "unset": ({}, QUERY, "the environment variable FIN_DB_URL is not set"),
    "syntax": (None, "SELEC metric FROM finance_facts", "the query failed"),
    "missing column": (None, "SELECT id, metric, entity, period, value FROM finance_facts",
                       "the query returns no column period_type"),
    "no such column": (None, "SELECT id, metrik FROM finance_facts", "the query failed"),
    "too many rows": ({"RICORDA_FACT_QUERY_MAX_ROWS": "3"}, QUERY,
                      "the query returned more than 3 rows"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_bad_query_source_says_why_and_keeps_the_figures_loaded_before(
        tmp_path: Path, kind: str) -> None:
    path = tmp_path / "finance.db"
    with sqlite3.connect(path) as conn:
        _fill(lambda sql, params=(): conn.execute(sql, params), "?")
    good_env = {"FIN_DB_URL": f"sqlite:///{path}"}
    data = tmp_path / "data"
    ricorda(data, "ingest", str(_sql_glossary(tmp_path)), env=good_env)
    env, query, message = BAD[kind]
    if env is None:
        env = good_env
    elif kind == "too many rows":
        env = good_env | env
    env = {k: v.format(pw=PASSWORD, port=_closed_port()) for k, v in env.items()}
    bad = ricorda(data, "ingest", str(_sql_glossary(tmp_path, query)), env=env, check=False)
    said = bad.stdout + bad.stderr
    assert bad.returncode == 1 and message in said, said
    assert PASSWORD not in said and "Traceback" not in said
    checked = ricorda(data, "check", str(_sql_glossary(tmp_path, query)), env=env, check=False)
    assert checked.returncode == 1 and message in checked.stdout, checked.stdout
    assert PASSWORD not in checked.stdout + checked.stderr
    assert _ask(data, "REVENUE", "2019")["value_exact"] == "1.234"  # nothing lost


def test_a_sheet_with_merged_header_cells_is_refused_and_loses_nothing(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    write_report(tmp_path)
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + REPORT_DECLARATION)
    data = tmp_path / "data"
    ricorda(data, "ingest", str(glossary))
    wb = load_workbook(tmp_path / "report.xlsx")
    ws = wb["Income statement"]
    ws["B3"] = 9999
    ws.merge_cells("B2:C2")
    wb.save(tmp_path / "report.xlsx")
    bad = ricorda(data, "ingest", str(glossary), check=False)
    assert bad.returncode == 1
    assert "the header cells B2:C2 are merged" in bad.stdout + bad.stderr, bad.stdout
    checked = ricorda(data, "check", str(glossary), check=False)
    assert checked.returncode == 1 and "B2:C2 are merged" in checked.stdout
    assert _ask(data, "REVENUE", "2019")["value_exact"] == "1.234"


def test_a_url_in_the_glossary_is_refused_at_its_line(tmp_path: Path) -> None:
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + f'\n[[facts]]\nsource = "finance"\n'
                        f'url = "postgresql://u:{PASSWORD}@127.0.0.1/db"\nquery = "{QUERY}"\n')
    line = glossary.read_text().splitlines().index('source = "finance"') + 2
    bad = ricorda(tmp_path / "data", "check", str(glossary), check=False)
    assert bad.returncode == 1
    assert f"glossary.toml:{line}: error: key 'facts[0].url': a database URL does not belong " \
        "in the glossary" in bad.stdout, bad.stdout
    assert PASSWORD not in bad.stdout + bad.stderr


def test_init_proposes_metrics_from_a_report_tables_labels(tmp_path: Path) -> None:
    write_report(tmp_path)
    data = tmp_path / "data"
    glossary = tmp_path / "glossary.toml"
    wrote = ricorda(data, "init", str(tmp_path / "report.xlsx"), "--out", str(glossary))
    assert f"then `ricorda check {glossary}`" in wrote.stderr  # the table is declared in it
    text = glossary.read_text()
    assert '[metrics.NET_INCOME_LOSS]\nnames = ["Net income (loss)"]' in text
    # "Total" under "Operating expenses": named by both, mapped by "heading / label"
    assert '"Operating expenses / Total" = "TOTAL_OPERATING_EXPENSES"' in text
    assert "(the table says in thousands)" in text and 'sheet = "Balance sheet"' in text
    glossary.write_text(text.replace('# unit = "USD"  # TODO: the currency of its figures '
                                     "(the table says in thousands)", 'unit = "USD"'))
    checked = ricorda(data, "check", str(glossary))
    assert "0 errors" in checked.stdout, checked.stdout
    ricorda(data, "ingest", str(glossary))
    answer = json.loads(ricorda(data, "ask", "What was total operating expenses in 2018?",
                                "--json").stdout)["facts"][0]
    assert (answer["value_exact"], answer["unit"]) == ("360.5", "USD_K")
    assert answer["source"]["locator"].endswith("row=Total;col=Year ended 31 December 2018;"
                                                "cell=C9")


SLOW = {"sqlite": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                  "SELECT x AS metric FROM c WHERE x < 0",
        "postgres": "SELECT pg_sleep(30) AS metric"}


def test_a_slow_query_is_stopped_and_loses_nothing(
        tmp_path: Path, finance_db: tuple[str, object]) -> None:
    url, _run = finance_db
    env = {"FIN_DB_URL": url}
    data = tmp_path / "data"
    ricorda(data, "ingest", str(_sql_glossary(tmp_path)), env=env)
    slow = SLOW["sqlite" if url.startswith("sqlite") else "postgres"]
    bad = ricorda(data, "ingest", str(_sql_glossary(tmp_path, slow)),
                  env=env | {"RICORDA_FACT_QUERY_SECONDS": "1"}, check=False)
    said = bad.stdout + bad.stderr
    assert bad.returncode == 1, said
    assert "finance: the query took longer than 1 s (setting fact_query_seconds)" in said, said
    assert PASSWORD not in said and "Traceback" not in said
    assert _ask(data, "REVENUE", "2019")["value_exact"] == "1.234"


@pytest.mark.postgres
def test_postgres_query_errors_name_the_database_reason(
        tmp_path: Path, postgres_schema_url: str) -> None:
    from tests.conftest import _libpq_url

    url = _libpq_url(postgres_schema_url).replace("postgres@", f"postgres:{PASSWORD}@", 1)
    env = {"FIN_DB_URL": url}
    data = tmp_path / "data"
    for query, reason in (("SELEC 1", 'syntax error at or near "SELEC"'),
                          ("SELECT metric FROM nowhere", 'relation "nowhere" does not exist')):
        bad = ricorda(data, "check", str(_sql_glossary(tmp_path, query)), env=env, check=False)
        assert bad.returncode == 1 and "finance: the query failed" in bad.stdout, bad.stdout
        assert reason in bad.stdout and PASSWORD not in bad.stdout + bad.stderr


DOCX_DECLARATION = '\n[[facts]]\nfile = "review.docx"\ntable = 2\nunit = "USD_K"\n'


def test_a_wide_table_inside_a_docx_loads_and_cites_its_cell(tmp_path: Path) -> None:
    from tests.wide_fixtures import write_docx_report

    write_docx_report(tmp_path)
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + DOCX_DECLARATION)
    data = tmp_path / "data"
    out = ricorda(data, "ingest", str(glossary)).stdout
    assert "facts review.docx [table 2]: 3 rows read, 4 new" in out, out
    assert "not loaded, no metric of the glossary: 'Net income (loss)' (NET_INCOME_LOSS)" in out
    cost = _ask(data, "COST_OF_SALES", "2018")
    assert cost["value_exact"] == "-0.75"
    assert cost["source"] == {"doc": "review.docx",
                              "locator": "table=2;row=Cost of sales;col=FY2018;cell=C3"}
    text = ricorda(data, "ask", "What was WidgetCo revenue in FY2019?").stdout
    assert "$1.234M" in text and "table 2" in text and "cell B2" in text, text
    write_docx_report(tmp_path, merged_header=True)  # now its header cells are merged
    bad = ricorda(data, "ingest", str(glossary), check=False)
    said = bad.stdout + bad.stderr
    assert bad.returncode == 1 and "the header cells B1:C1 are merged" in said, said
    assert _ask(data, "REVENUE", "2019")["value_exact"] == "1.234"  # nothing lost


def test_a_pipe_table_inside_markdown_loads(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Results\n\nIn millions of USD.\n\n"
                                      "| | 2019 | 2018 |\n|---|---:|---:|\n"
                                      "| Cash ¹ | 45.6 | 40.1 |\n")
    glossary = tmp_path / "glossary.toml"
    glossary.write_text(GLOSSARY + '\n[[facts]]\nfile = "note.md"\nunit = "USD_M"\n')
    data = tmp_path / "data"
    ricorda(data, "ingest", str(glossary))
    cash = _ask(data, "CASH", "2018")
    assert cash["value_exact"] == "40.1"
    # "Cash" is one of CASH's names: no mapping needed
    assert cash["source"]["locator"] == "table=1;row=Cash;col=2018;cell=C2"


def test_a_declared_table_beside_the_glossary_is_checked_and_ingested_as_declared(
        tmp_path: Path) -> None:
    (tmp_path / "table.csv").write_text(TATQA)
    (tmp_path / "glossary.toml").write_text(
        '[scope]\ndefault_entity = "ACME"\n[entities.ACME]\nnames = ["Acme"]\n'
        '[metrics.REVENUE]\nnames = ["revenue"]\nunit = "USD_K"\n'
        '\n[[facts]]\nfile = "table.csv"\nunit = "USD"\n')
    data = tmp_path / "data"
    checked = ricorda(data, "check", "--json")  # no paths: ./glossary.toml and what is beside
    report = json.loads(checked.stdout)
    assert report["ok"] and report["checked"]["fact_files"] == [], checked.stdout
    assert report["checked"]["fact_sources"] == ["table.csv"]
    out = ricorda(data, "ingest", str(tmp_path / "glossary.toml"), str(tmp_path / "table.csv"))
    assert "table.csv: declared in the glossary ([[facts]]), read as declared" in out.stdout
    assert "facts table.csv: 5 rows read, 2 new" in out.stdout, out.stdout


def test_a_wrong_password_is_said_and_never_printed(tmp_path: Path) -> None:
    from tests.fake_postgres import RefusingPostgres

    server = RefusingPostgres().start()
    try:
        env = {"FIN_DB_URL": f"postgresql://ricorda:{PASSWORD}@127.0.0.1:{server.port}/finance"}
        glossary = _sql_glossary(tmp_path)
        for command in ("check", "ingest"):
            bad = ricorda(tmp_path / "data", command, str(glossary), env=env, check=False)
            said = bad.stdout + bad.stderr
            assert bad.returncode == 1, said
            assert "finance: cannot connect to the database in FIN_DB_URL" in said, said
            assert 'password authentication failed for user "ricorda"' in said
            assert PASSWORD not in said and "Traceback" not in said
        assert PASSWORD in server.passwords  # the password was really sent, and refused
    finally:
        server.stop()


@pytest.mark.parametrize(("entry", "key", "why"), [
    ('file = "t.csv"\nurl_env = "X"\nquery = "SELECT 1"', "file", "give either file"),
    ('file = "t.txt"', "file", "must be a .xlsx or .csv file"),
    ('file = "t.csv"\nsheet = "PnL"', "sheet", "only a .xlsx workbook has sheets"),
    ('file = "t.csv"\nscale = "lots"', "scale", 'must be "thousands"'),
    ('file = "t.csv"\nperiods = "down"', "periods", 'must be "columns"'),
    ('file = "t.csv"\ncolour = "red"', "colour", "unknown key"),
    ('url_env = "X"\nquery = "SELECT 1"', "source", "a database source needs a name"),
    ('source = "f"\nurl_env = "X-Y"\nquery = "SELECT 1"', "url_env", "environment variable"),
    ('source = "f"\nurl_env = "X"\nquery = "SELECT 1"\nsheet = "A"', "sheet",
     'only a wide result has it: add layout = "wide"'),
])
def test_a_bad_facts_entry_is_refused_at_its_line(entry: str, key: str, why: str) -> None:
    from core.contracts.errors import ConfigError
    from core.knowledge.glossary import parse_glossary

    text = GLOSSARY + "\n[[facts]]\n" + entry + "\n"
    lines = text.splitlines()
    line = next(i + 1 for i, t in enumerate(lines) if i > lines.index("[[facts]]")
                and t.startswith(f"{key} ")) if f"\n{key} " in text else lines.index(
                    "[[facts]]") + 1
    with pytest.raises(ConfigError) as caught:
        parse_glossary(text)
    assert f"line {line}, key 'facts[0].{key}'" in str(caught.value) and why in str(caught.value)
