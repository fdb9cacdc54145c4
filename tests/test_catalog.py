"""The message catalog (core/catalog, docs/catalog.md): every sentence in every language with the
same fields, one lookup, numbers and dates in the reader's convention from a CLDR snapshot that
matches Babel, and a guard that fails on a sentence written anywhere else."""

from __future__ import annotations

import ast
import datetime as dt
import re
import string
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest

from adapters.slack import words as slack_words
from adapters.teams import words as teams_words
from adapters.telegram import words as telegram_words
from core.catalog import cldr
from core.catalog.formats import date, month_name, number, percent
from core.catalog.lookup import CATALOG, LANGUAGES, join_list, say
from core.catalog.sentence import Sentence

REPO = Path(__file__).resolve().parents[1]
TABLES: dict[str, dict[str, Sentence]] = {
    "core.catalog": CATALOG,
    "adapters.telegram.words": telegram_words.WORDS,
    "adapters.slack.words": slack_words.WORDS,
    "adapters.teams.words": teams_words.WORDS,
}


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_sentence_has_every_language_with_the_same_fields(table: str) -> None:
    wrong = []
    for key, sentence in TABLES[table].items():
        if sorted(sentence) != sorted(LANGUAGES) or not all(sentence.values()):
            wrong.append(f"{key}: languages {sorted(sentence)}")
            continue
        fields = {language: _fields(text) for language, text in sentence.items()}
        if len({frozenset(f) for f in fields.values()}) != 1:
            wrong.append(f"{key}: fields {fields}")
    assert wrong == []


def test_the_lookup_fills_falls_back_to_english_and_refuses_an_unknown_key() -> None:
    assert say("not_found", "it", subject="EBITDA") == (
        "Non ho un dato per EBITDA nella tabella dei fatti.")
    assert say("not_found", "de", subject="EBITDA") == (
        "I have no figure for EBITDA in the fact table.")
    with pytest.raises(KeyError, match="no_such_sentence"):
        say("no_such_sentence", "en")
    with pytest.raises(KeyError):  # a field the sentence needs is missing
        say("not_found", "en")


def test_lists_are_joined_as_each_language_writes_them() -> None:
    assert join_list(["Italia", "Cina", "USA"], "en") == "Italia, Cina and USA"
    assert join_list(["Italia", "Cina", "USA"], "it") == "Italia, Cina e USA"
    assert join_list(["意大利", "中国"], "zh") == "意大利、中国"
    assert join_list(["Italia"], "en") == "Italia"


@pytest.mark.parametrize(
    ("language", "whole", "change"),
    [("en", "1,320.5", "+4.6%"), ("it", "1.320,5", "+4,6%"), ("zh", "1,320.5", "+4.6%")],
)
def test_numbers_in_each_languages_convention(language: str, whole: str, change: str) -> None:
    assert number(Decimal("1320.5"), language) == whole
    assert number(Decimal("-1234567.125"), language).startswith("-1")
    assert percent(Decimal("4.56"), language) == change
    assert percent(Decimal("-4.04"), language).startswith("-4")


@pytest.mark.parametrize(
    ("language", "medium", "long", "june"),
    [
        ("en", "Jun 15, 2026", "June 15, 2026", "Jun"),
        ("it", "15 giu 2026", "15 giugno 2026", "giu"),
        ("zh", "2026年6月15日", "2026年6月15日", "6月"),
    ],
)
def test_dates_in_each_languages_convention(language: str, medium: str, long: str,
                                            june: str) -> None:
    day = dt.date(2026, 6, 15)
    assert date(day, language) == medium
    assert date(day, language, "long") == long
    assert month_name(6, language) == june


def test_the_cldr_snapshot_is_what_babel_says() -> None:
    """Regenerate with `python -m core.catalog.cldr` when this fails after a Babel upgrade."""
    pytest.importorskip("babel")
    assert cldr.from_babel(LANGUAGES) == cldr.CLDR


def test_answering_never_imports_babel() -> None:
    code = ("import sys, datetime, decimal; from core.catalog.lookup import say; "
            "from core.catalog.formats import date, number; say('usage', 'it'); "
            "number(decimal.Decimal('1.5'), 'it'); date(datetime.date(2026, 1, 2), 'zh'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'babel'))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(REPO)})
    assert out.stdout.strip() == "[]"


# -- the guard: no sentence outside the catalog ---------------------------------------------
#
# A user-visible sentence, for this guard: a string constant (or the literal parts of an
# f-string) of at least three words (or four Chinese characters) passed to a call that builds
# or sends a reply or a menu (its name matches REPLY_CALLS), or any dict keyed by two or more of
# the language codes. The catalog itself (core/catalog/) and each adapter's words.py are where
# such text belongs, so they are not scanned.

REPLY_CALLS = re.compile(
    r"reply|send|answer|respond|note|ack|post|say|edit|message|help|"
    r"Line|Notice|Passage|Option|Assumption|Command", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{2,}")
_HAN = re.compile(r"[\u4e00-\u9fff]")

# (file, beginning of the text): what the rule matches but no chat user reads as a sentence
ALLOWED_TEXT = {
    # an assumption's reason code in `ask --json`; the reader sees its note, from the catalog
    ("core/figures/aggregate.py", "last complete fiscal year"),
    ("core/figures/clarify.py", "last complete fiscal year"),
    ("core/figures/table_parts.py", "last complete fiscal year"),
    ("core/figures/clarify.py", "the latest complete one"),
    ("core/figures/change.py", "not named in the question"),
    ("core/figures/tabulate.py", "not named in the question"),
    # a prompt for the reranking model, not for the reader
    ("core/documents/rerank.py", "Question:"),
    # for operators: `ricorda feedback`'s outcome on the CLI, the nightly promotion notes
    ("core/fastpath/feedback.py", "no answer with id"),
    ("core/nightly/promotion.py", "would auto-approve"),
    # the developer console's banner (adapters/console.py: an operator's tool, in English)
    ("adapters/console.py", "ricorda console"),
}
# (file, variable): tables keyed by language that hold what readers write, not what the bot says
ALLOWED_TABLES = {
    ("core/fastpath/canonical.py", "_STOPWORDS"),  # words dropped when matching questions
    ("core/question/intent_words.py", "_STRONG_NUMERIC_CUES"),  # words that ask for a number
    ("core/question/intent_words.py", "_WEAK_NUMERIC_CUES"),
    ("core/question/intent_words.py", "_NARRATIVE_CUES"),  # words that ask why
}


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return " ".join(v.value for v in node.values
                        if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        parts = [_text(node.left), _text(node.right)]
        return "".join(p for p in parts if p) if any(parts) else None
    return None


def _is_sentence(text: str) -> bool:
    if text.isascii() and text.isidentifier():  # a catalog key ("purge_all_prompt"), a code
        return False
    return len(_WORD.findall(text)) >= 3 or len(_HAN.findall(text)) >= 4


def _call_name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def literal_sentences(source: str, path: str) -> list[tuple[str, str]]:
    """(path, text) for each literal sentence in `source`, minus the allow-lists."""
    tree = ast.parse(source)
    named = {id(node.value): target.id for node in ast.walk(tree)
             if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Name)}
    found: list[tuple[str, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            name = named.get(id(node), f"<dict at line {node.lineno}>")
            if len(keys & set(LANGUAGES)) >= 2 and (path, name) not in ALLOWED_TABLES:
                found.append((path, f"table {name} keyed by language"))
        elif isinstance(node, ast.Call) and REPLY_CALLS.search(_call_name(node.func)):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                text = _text(arg)
                if text and _is_sentence(text) and not any(
                        path == p and text.startswith(t) for p, t in ALLOWED_TEXT):
                    found.append((path, text))
    return found


def _scanned() -> list[Path]:
    paths = [*(REPO / "core").rglob("*.py"), *(REPO / "adapters").rglob("*.py")]
    return sorted(p for p in paths
                  if "catalog" not in p.relative_to(REPO).parts[:2] and p.name != "words.py")


def test_no_sentence_is_written_outside_the_catalog() -> None:
    found = [hit for path in _scanned()
             for hit in literal_sentences(path.read_text(encoding="utf-8"),
                                          path.relative_to(REPO).as_posix())]
    assert found == [], "move these sentences into core/catalog (or the adapter's words.py)"


def test_the_guard_sees_a_sentence_and_a_language_table() -> None:
    source = (
        "async def on_help(message):\n"
        "    await message.reply_text('Ask me about revenue')\n"
        "    await message.reply_text(f'Hello {name}, ask me anything')\n"
        "    port.note('请重新提问一次')\n"
        "    log.info('this is for the operator only')\n"
        "    await message.reply_text(say('usage_example', language))\n"
        "_HELLO = {'en': 'Hi', 'it': 'Ciao'}\n"
    )
    found = {text for _, text in literal_sentences(source, "adapters/x.py")}
    assert found == {"Ask me about revenue", "Hello  , ask me anything", "请重新提问一次",
                     "table _HELLO keyed by language"}


def test_the_allow_lists_are_small_and_still_needed() -> None:
    """Each entry is matched by something in the code (a stale entry would hide a new
    sentence written in its place), and the lists stay short."""
    assert len(ALLOWED_TEXT) + len(ALLOWED_TABLES) <= 15
    sources = {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8") for p in _scanned()}
    for path, text in ALLOWED_TEXT:
        assert text in sources[path], (path, text)
    for path, name in ALLOWED_TABLES:
        assert re.search(rf"^{name}\b", sources[path], re.MULTILINE), (path, name)
