"""Glossary loading: the docs/formats.md format, and errors that name file, line and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.contracts.errors import ConfigError
from core.knowledge.glossary import load_glossary, parse_glossary
from core.knowledge.names import NameIndex
from tests.acme import ACME

GOOD = (ACME / "glossary.toml").read_text(encoding="utf-8")


def test_loads_the_design_format() -> None:
    g = load_glossary(ACME / "glossary.toml")
    assert g.default_entity == "ACME_GROUP" and g.fiscal_year_end == "12-31"
    assert g.metrics["REVENUE"].unit == "USD_M"
    assert g.entities["ACME_CN"].parent == "ACME_GROUP"
    assert g.entities["ACME_LABS"].restricted is True
    assert "TOTAL" in g.channels  # implicit default channel
    assert g.is_cleared("telegram:9001") and not g.is_cleared("telegram:1")
    assert g.label("entity", "ACME_CN", "zh") == "中国区"


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        (
            GOOD.replace('default_entity = "ACME_GROUP"', 'default_entity = "NOPE"'),
            "line 3, key 'scope.default_entity'",
        ),
        (
            GOOD.replace('fiscal_year_end = "12-31"', 'fiscal_year_end = "31/12"'),
            "line 4, key 'scope.fiscal_year_end'",
        ),
        (GOOD.replace('unit = "FTE"', "unit = 3"), "key 'metrics.HEADCOUNT.unit'"),
        (
            GOOD.replace(
                'parent = "ACME_GROUP"\nrestricted = true', 'parent = "MARS"\nrestricted = true'
            ),
            "key 'entities.ACME_LABS.parent'",
        ),
        (
            GOOD.replace("restricted = true", 'restricted = "yes"'),
            "key 'entities.ACME_LABS.restricted'",
        ),
        (
            GOOD.replace('names = ["online", "e-commerce", "线上"]', "names = [1, 2]"),
            "key 'channels.ONLINE.names'",
        ),
        (GOOD.replace("[entities.ACME_HK]", "[entities.acme-hk]"), "key 'entities.acme-hk'"),
        (GOOD.replace("[scope]", "[scoop]"), "key 'scope'"),
    ],
)
def test_errors_name_file_line_and_key(tmp_path: Path, broken: str, expected: str) -> None:
    path = tmp_path / "glossary.toml"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_glossary(path)
    assert str(path) in str(err.value)
    assert expected in str(err.value)


def test_toml_syntax_error_names_line(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_text('[scope]\ndefault_entity = "A\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"g\.toml.*line 2"):
        load_glossary(path)


def test_binary_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "g.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ConfigError, match="cannot read the glossary"):
        load_glossary(path)


def test_normalisers_return_none_instead_of_guessing() -> None:
    names = NameIndex(parse_glossary(GOOD))
    assert names.normalize("entity", "cina") == "ACME_CN"
    assert names.normalize("entity", "  ACME   china ") == "ACME_CN"
    assert names.normalize("entity", "ACME_CN") == "ACME_CN"
    assert names.normalize("entity", "Chin") is None
    assert names.normalize("entity", "revenue") is None  # a metric name is not an entity
    assert names.normalize("metric", "营收") == "REVENUE"
    assert names.normalize("channel", "线上") == "ONLINE"
    assert names.normalize("channel", "wholesale") is None


def test_longest_name_wins() -> None:
    names = NameIndex(parse_glossary(GOOD))
    found = names.find("ACME Hong Kong revenue")
    assert [(m.kind, m.code, m.raw) for m in found] == [
        ("entity", "ACME_HK", "ACME Hong Kong"),
        ("metric", "REVENUE", "revenue"),
    ]
