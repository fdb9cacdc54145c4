"""The words a question asks a scale or a currency with, in every language (issue 40 point 4):
read by core.question.scale_asked and core.question.currency_asked, never from a name."""

from __future__ import annotations

import pytest

from core.question.currency_asked import asked_currency
from core.question.scale_asked import asked_scale


@pytest.mark.parametrize(
    ("text", "power"),
    [
        ("marketing spend in millions", 6), ("in €m", 6), ("in EUR millions", 6),
        ("in USD k", 3), ("in A$ Mln", 6), ("in mila euro", 3), ("in migliaia", 3),
        ("in miliardi", 9), ("in Mln", 6), ("in K", 3), ("以万元计", 4), ("是多少亿", 8),
        ("营收几亿", 8), ("营收（亿欧元）", 8), ("单位：万欧元", 4), ("以百万澳元计", 6),
        ("revenue in 2025", None), ("revenue in March", None), ("revenue in Mexico", None),
        ("in kg", None), ("margin in %", None), ("sales in Milan", None),
    ],
)
def test_scale_words(text: str, power: int | None) -> None:
    scale = asked_scale(text)
    assert (scale.power if scale else None) == power


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("revenue in US dollars", {"USD"}), ("in USD millions", {"USD"}), ("in €m", {"EUR"}),
        ("in euros", {"EUR"}), ("in dollari americani", {"USD"}), ("in dollari", None),
        ("in Australian dollars", {"AUD"}), ("in yuan", {"CNY"}), ("in sterline", {"GBP"}),
        ("以百万美元计", {"USD"}), ("换算成人民币", {"CNY"}), ("（欧元）", {"EUR"}),
        ("Meridian US revenue 2026", False), ("revenue in Mexico", False),
        ("revenue 2025", False), ("USD revenue", False),
    ],
)
def test_currency_words(text: str, codes: set[str] | bool | None) -> None:
    """None: a dollar of any country ("dollars"); False: no currency asked."""
    asked = asked_currency(text)
    if codes is False:
        assert asked is None
    elif codes is None:
        assert asked is not None and {"USD", "AUD"} <= asked.codes
    else:
        assert asked is not None and asked.codes == frozenset(codes)
