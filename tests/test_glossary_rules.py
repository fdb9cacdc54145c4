"""The glossary validated as a whole (core.knowledge.glossary_rules): every glossary below was
accepted
before (exit code 0), then broke or weakened the bot at question time. Each must now be refused
with its file, line and reason, and the glossary already stored must stay in use."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bot.kb.ingest import ingest_paths
from bot.settings.model import load_settings
from bot.wiring.build import build_app
from core.contracts.errors import ConfigError
from core.contracts.types import Request
from core.knowledge.glossary import parse_glossary
from tests.acme import ACME
from tests.test_cli import REF, ask_json, ricorda

GOOD = (ACME / "glossary.toml").read_text(encoding="utf-8")
HK_NAMES = 'names = ["ACME HK", "ACME Hong Kong", "Hong Kong", "香港"'
IT_NAMES = 'names = ["ACME Italia", "Italy", "Italia", "意大利"'
RETAIL_NAMES = 'names = ["retail", "stores", "negozi", "门店"'

# (what is changed, the broken glossary, key, the line's marker, words of the reason)
BAD = [
    ("impossible fiscal year end", GOOD.replace('"12-31"', '"02-30"'),
     "scope.fiscal_year_end", 'fiscal_year_end = "02-30"', "not a day of the year"),
    ("day 31 of a 30-day month", GOOD.replace('"12-31"', '"04-31"'),
     "scope.fiscal_year_end", 'fiscal_year_end = "04-31"', "April has 30 days"),
    ("restricted default entity",
     GOOD.replace('names = ["ACME Group", "Gruppo ACME", "ACME集团"]',
                  'names = ["ACME Group", "Gruppo ACME", "ACME集团"]\nrestricted = true'),
     "scope.default_entity", 'default_entity = "ACME_GROUP"', "is restricted"),
    ("a name of two entities", GOOD.replace(HK_NAMES, HK_NAMES + ', "China"'),
     "entities.ACME_HK.names", HK_NAMES, "'China' is also a name of entities.ACME_CN"),
    ("same name, other case, other table", GOOD.replace(RETAIL_NAMES, RETAIL_NAMES + ', "SALES"'),
     "channels.RETAIL.names", RETAIL_NAMES, "'SALES' is also a name of metrics.REVENUE"),
    ("same name, other spacing", GOOD.replace(IT_NAMES, IT_NAMES + ', "acme   CHINA"'),
     "entities.ACME_IT.names", IT_NAMES, "is also a name of entities.ACME_CN"),
    ("a name equal to another's code", GOOD.replace(HK_NAMES, HK_NAMES + ', "acme_cn"'),
     "entities.ACME_HK.names", HK_NAMES, "'acme_cn' is also a name of entities.ACME_CN"),
    ("a metric named like the built-in channel",
     GOOD.replace('"margine operativo lordo"', '"margine operativo lordo", "Total"'),
     "metrics.EBITDA.names", '"margine operativo lordo", "Total"',
     "'Total' is also a name of channels.TOTAL"),
    ("an entity named like a competitor", GOOD.replace(IT_NAMES, IT_NAMES + ', "Vortex Corp"'),
     "entities.ACME_IT.names", IT_NAMES, "contains the competitor name 'Vortex Corp'"),
    ("a competitor's name inside an entity's",
     GOOD.replace(IT_NAMES, IT_NAMES + ', "VortexCorp Italia"'),
     "entities.ACME_IT.names", IT_NAMES, "every question naming it would be refused"),
    ("a parent cycle",
     GOOD.replace('names = ["ACME Group", "Gruppo ACME", "ACME集团"]',
                  'names = ["ACME Group", "Gruppo ACME", "ACME集团"]\nparent = "ACME_CN"'),
     "entities.ACME_CN.parent", None, "ACME_CN -> ACME_GROUP -> ACME_CN"),
    ("an entity its own parent",
     GOOD.replace('parent = "ACME_GROUP"\nrestricted = true',
                  'parent = "ACME_LABS"\nrestricted = true'),
     "entities.ACME_LABS.parent", 'parent = "ACME_LABS"', "cannot be its own parent"),
]


def line_of(text: str, key: str, marker: str | None) -> int:
    """The 1-based line the report must name: the marker's line, else `key`'s own line."""
    lines = text.splitlines()
    if marker is None:  # the `parent = ` line inside the key's table
        header = "[" + ".".join(key.split(".")[:-1]) + "]"
        start = lines.index(header)
        return next(i for i in range(start, len(lines)) if lines[i].startswith("parent")) + 1
    return next(i for i, line in enumerate(lines) if marker in line) + 1


@pytest.mark.parametrize(("case", "text", "key", "marker", "reason"), BAD, ids=[b[0] for b in BAD])
def test_each_bad_glossary_is_refused_with_file_line_and_reason(
    case: str, text: str, key: str, marker: str | None, reason: str
) -> None:
    with pytest.raises(ConfigError) as err:
        parse_glossary(text, source="kb/glossary.toml")
    message = str(err.value)
    assert f"kb/glossary.toml, line {line_of(text, key, marker)}, key '{key}'" in message, message
    assert reason in message, message


def test_the_shipped_glossaries_pass() -> None:
    for path in (ACME / "glossary.toml", Path("bot/demo/glossary.toml")):
        parse_glossary(path.read_text(encoding="utf-8"))


def test_every_problem_is_reported_at_once() -> None:
    text = GOOD.replace('"12-31"', '"02-30"').replace(HK_NAMES, HK_NAMES + ', "China"')
    with pytest.raises(ConfigError) as err:
        parse_glossary(text, source="glossary.toml")
    lines = str(err.value).splitlines()
    assert len(lines) == 2
    assert "scope.fiscal_year_end" in lines[0] and "entities.ACME_HK.names" in lines[1]


@pytest.mark.parametrize(("case", "text", "key", "marker", "reason"), BAD, ids=[b[0] for b in BAD])
def test_a_refused_glossary_leaves_the_stored_one_in_use(
    tmp_path: Path, case: str, text: str, key: str, marker: str | None, reason: str
) -> None:
    app = build_app(load_settings(data_dir=tmp_path / "data", embedder="hashing"))
    try:
        ingest_paths(app, [ACME / "glossary.toml", ACME / "facts.csv"])
        before = app.storage.glossaries.load()
        bad = tmp_path / "glossary.toml"
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(ConfigError, match=reason.replace("(", r"\(")):
            ingest_paths(app, [bad])
        assert app.storage.glossaries.load() == before
        question = Request(text="What was ACME China revenue in FY2024?",
                           reference_date=dt.date.fromisoformat(REF))
        answer = app.core.answering.answer(question)
        assert "1,320" in answer.text
    finally:
        app.close()


def test_cli_refuses_an_impossible_date_with_exit_1_and_keeps_answering(tmp_path: Path) -> None:
    """Before: exit 0, then every question crashed on the 30th of February."""
    data = tmp_path / "data"
    ricorda(data, "ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"))
    bad = tmp_path / "glossary.toml"
    bad.write_text(GOOD.replace('"12-31"', '"02-30"'), encoding="utf-8")
    proc = ricorda(data, "ingest", str(bad), check=False)
    assert proc.returncode == 1
    assert f"{bad}, line 4, key 'scope.fiscal_year_end'" in proc.stderr
    assert "Traceback" not in proc.stderr
    # the period is assumed: fiscal year end used; the group total asked from a chat cleared
    # for ACME's restricted unit (elsewhere it is withheld, issue 33)
    answer = ask_json(data, "What was revenue?", "--chat", "telegram:9001")
    assert answer["route"] == "structured" and answer["facts"][0]["status"] == "found"
