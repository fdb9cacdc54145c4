"""The reply's language (issue 40 point 5), end to end through `ricorda ask --json` on three test
companies (bench/companies): weighed on the whole question, where a company's own names ("Alpina
Italia", "Cina") are no evidence and the words of its metric labels are ("spese", "casse
spedite"); a question that still says neither is answered in the chat's language."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.companies_cli import found, load_company
from tests.period_companies import ask_json
from tests.test_cli import ricorda

DAYS = {"alpina": "2026-02-10", "kestrel": "2026-08-20", "meridian": "2026-11-20"}


@pytest.fixture(scope="module")
def companies(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return {name: load_company(tmp_path_factory, name)[0] for name in DAYS}


@pytest.mark.parametrize(
    ("company", "question", "language", "metric", "entity"),
    [
        # English sentences naming a unit by its Italian name
        ("alpina", "Alpina Italia marketing expenses FY2025", "en", "MARKETING", "ALPINA_IT"),
        ("meridian", "Cina operating margin FY2026", "en", "OPERATING_MARGIN", "MERIDIAN_CN"),
        # Italian without a grammar word: the company's Italian labels say so
        ("alpina", "spese marketing Germania 2025", "it", "MARKETING", "ALPINA_DE"),
        ("kestrel", "casse spedite Australia H1 FY2026", "it", "CASES", "KESTREL_AU"),
        # Chinese: any Chinese character
        ("alpina", "Alpina Italia 2025财年的EBITDA是多少？", "zh", "EBITDA", "ALPINA_IT"),
        ("kestrel", "Kestrel Australia 2026财年sales", "zh", "SALES", "KESTREL_AU"),
    ],
)
def test_the_reply_is_in_the_questions_language(
    companies: dict[str, Path], company: str, question: str, language: str, metric: str,
    entity: str,
) -> None:
    answer = ask_json(companies[company], question, DAYS[company])
    assert answer["language"] == language, answer["text"]
    facts = found(answer)
    assert facts and (facts[0]["metric_code"], facts[0]["entity"]) == (metric, entity)


@pytest.mark.parametrize(
    ("first", "language"),
    [("中国区2026财年营业利润率", "zh"), ("margine operativo della Cina nel 2026", "it"),
     ("what was China's operating margin in FY2026?", "en")],
)
def test_a_name_alone_keeps_the_chats_language(
    companies: dict[str, Path], first: str, language: str,
) -> None:
    """"Cina EBITDA 2025" says no language (a unit's name and a borrowed code): the chat's."""
    data, day = companies["meridian"], DAYS["meridian"]
    chat = f"console:units-lang-{language}"
    ask = ("ask", "--json", "--reference-date", day, "--chat", chat)
    import json

    assert json.loads(ricorda(data, *ask, first).stdout)["language"] == language
    answer = json.loads(ricorda(data, *ask, "Cina EBITDA 2025").stdout)
    assert answer["language"] == language
