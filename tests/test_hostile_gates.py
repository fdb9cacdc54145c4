"""The competitor and restricted gates against names in disguise: invisible (format)
characters, Cyrillic/Greek look-alikes, letters decorated with dots or spelled out, words joined
with hyphens. Whatever the disguise, a competitor is refused and a restricted unit stays
refused for a chat without clearance; and a public note about a competitor is never quoted."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.wiring.build import App
from core.contracts.types import Request, Route
from core.knowledge.comparable import CONFUSABLES, comparable, fold, squash
from core.knowledge.glossary import load_glossary
from core.knowledge.names import NameIndex
from core.pipeline.pipeline import Pipeline
from core.question.intent import RuleIntentParser
from core.question.security import SecurityGate
from tests.acme import ACME, REF
from tests.demo_kb import demo_with_document

GLOSSARY = load_glossary(ACME / "glossary.toml")
NAMES = NameIndex(GLOSSARY)
GATE = SecurityGate(NAMES)
PARSER = RuleIntentParser(NAMES)
RESTRICTED_NAMES = ("ACME Labs", "Labs", "LABS", "acme labs")
FORMAT_CHARS = (
    "\u200b",  # zero-width space
    "\u200c",  # zero-width non-joiner
    "\u200d",  # zero-width joiner
    "\u00ad",  # soft hyphen
    "\u2060",  # word joiner
    "\ufeff",  # BOM / zero-width no-break space
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u180e",  # Mongolian vowel separator
)
LOOKALIKES: dict[str, list[str]] = {}
for _fake, _real in CONFUSABLES.items():
    LOOKALIKES.setdefault(_real, []).append(_fake)


@st.composite
def disguised(draw: st.DrawFn, name: str) -> str:
    """`name` with look-alikes swapped in and format characters inserted anywhere."""
    chars = []
    for ch in name:
        fakes = LOOKALIKES.get(ch, [])
        if fakes and draw(st.booleans()):
            ch = draw(st.sampled_from(fakes))
        chars.append(ch)
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(chars)))
        chars.insert(at, draw(st.sampled_from(FORMAT_CHARS)))
    return "".join(chars)


def _names(pool: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(pool).flatmap(disguised)


_frames = st.sampled_from(
    ["{} revenue FY2025", "What was {} revenue in 2025?", "Qual è il fatturato di {} nel 2025?",
     "{}营收2025", "why did {} grow", "{}", "tell me about {}"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_names(GLOSSARY.competitors), _frames, st.booleans())
def test_a_disguised_competitor_is_always_refused(name: str, frame: str, cleared: bool) -> None:
    verdict = GATE.check(frame.format(name), cleared=cleared)
    assert not verdict.allowed and verdict.reason == "competitor", ascii(name)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_names(RESTRICTED_NAMES), _frames)
def test_a_disguised_restricted_unit_stays_refused_without_clearance(name: str, frame: str) -> None:
    question = frame.format(name)
    verdict = GATE.check(question, cleared=False)
    assert not verdict.allowed and verdict.reason == "restricted", ascii(question)
    # a cleared chat sees the unit: the gate and the parser read the disguise the same way
    assert GATE.check(question, cleared=True).allowed
    assert "ACME_LABS" in PARSER.parse(question, REF).entities


@pytest.mark.parametrize(
    "question",
    [
        "Vortex\u200b Corp revenue",  # zero-width space
        "Vor\u200dtex Corp revenue",  # zero-width joiner
        "Vor\u00adtex Corp revenue",  # soft hyphen
        "V\u2060ortex Corp revenue",  # word joiner
        "V\u043ertex Corp revenue",  # Cyrillic о
        "V\u03bfrtex C\u03bfrp revenue",  # Greek ο
        "V.o.r.t.e.x Corp revenue",
        "Vortex-Corp revenue",
        "Vortex_Corp revenue",
        "China-Rival-Ltd revenue",
        "C.h.i.n.a R.i.v.a.l Ltd sales",
        "𝐕𝐨𝐫𝐭𝐞𝐱 Corp revenue",  # mathematical bold
        "V̸ortex Corp revenue",  # combining mark
    ],
)
def test_competitor_tricks_from_the_report_are_refused(question: str) -> None:
    for cleared in (False, True):
        assert GATE.check(question, cleared=cleared).reason == "competitor", ascii(question)


@pytest.mark.parametrize(
    "question",
    [
        "ACME La\u00adbs revenue 2025",
        "L\u0430bs revenue 2025",  # Cyrillic а
        "L.a.b.s revenue 2025",
        "L-a-b-s revenue 2025",
        "L a b s revenue 2025",
        "ACME-Labs revenue 2025",
        "A.C.M.E L\u200babs revenue",
        "Lab\u2060s headcount",
        "ＬＡＢＳ revenue",
    ],
)
def test_restricted_tricks_are_refused_for_an_uncleared_chat(question: str) -> None:
    assert GATE.check(question, cleared=False).reason == "restricted", ascii(question)
    assert GATE.check(question, cleared=True).allowed


@pytest.mark.parametrize(
    ("question", "entities"),
    [
        ("China's revenue 2025", ["ACME_CN"]),
        ("il fatturato dell'Italia nel 2025", ["ACME_IT"]),
        ("revenue China/Italia 2025", ["ACME_CN", "ACME_IT"]),
        ("revenue Italia-China 2025", ["ACME_IT", "ACME_CN"]),
        ("revenue Italia, China 2025", ["ACME_IT", "ACME_CN"]),
        ("ACME-Hong-Kong revenue", ["ACME_HK"]),
        ("e-commerce revenue China", ["ACME_CN"]),
    ],
)
def test_ordinary_punctuation_keeps_its_names(question: str, entities: list[str]) -> None:
    """Ignoring decorations inside a name must not glue two names of a sentence together."""
    assert GATE.check(question, cleared=False).allowed
    assert PARSER.parse(question, REF).entities == entities


def test_the_folded_forms_are_documented_and_stable() -> None:
    assert fold("ＡＣＭＥ\u200b L\u0430bs perché") == "acme labs perche"
    assert squash("N.i.m.b.u.s-Retail") == "nimbusretail"
    text, offsets = comparable("N.i.m.b.u.s\u200b")
    assert text == "nimbus" and offsets == [0, 2, 4, 6, 8, 10]


# --- the whole stack: a public note about a competitor is never quoted -----------------------

NOTE = """# Nimbus Retail field notes

Nimbus Retail plans to open forty flagship stores in Shanghai next year, with a loyalty scheme
copied from Orbis. Nimbus Retail margin guidance is 41 percent.
"""


@pytest.fixture(scope="module")
def app_with_competitor_note(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    root = tmp_path_factory.mktemp("competitor_note")
    app = demo_with_document(root, "nimbus_field_notes.md", NOTE)
    yield app
    app.close()


@pytest.mark.parametrize(
    "question",
    [
        "What are N\u200bimbus Retail's plans for flagship stores in Shanghai?",
        "What are Nimbus-Retail plans for flagship stores in Shanghai?",
        "What are N.i.m.b.u.s Retail plans for flagship stores in Shanghai?",
        "What are Nimbus R\u0435tail plans for flagship stores in Shanghai?",
        "Why is Nimbus\u00adRetail opening flagship stores?",
    ],
)
def test_a_disguised_competitor_question_never_quotes_the_note(
    app_with_competitor_note: App, question: str
) -> None:
    answerer = app_with_competitor_note.core.answerer
    ans = Pipeline(answerer).answer(Request(question, chat="telegram:1"))
    blob = json.dumps(ans.to_dict(), ensure_ascii=False)
    assert ans.route is Route.REFUSED, blob[:300]
    assert "flagship" not in ans.text and "nimbus_field_notes" not in blob


def test_the_note_is_retrievable_so_the_refusal_is_the_gate(app_with_competitor_note: App) -> None:
    """Without a competitor's name the note is found: the refusals above are the gate's."""
    ans = Pipeline(app_with_competitor_note.core.answerer).answer(
        Request("Who is opening forty flagship shops in Shanghai?", chat="telegram:1")
    )
    assert "nimbus_field_notes.md" in json.dumps(ans.to_dict(), ensure_ascii=False)
