"""What a numeric question asks about when it names no metric of the glossary.

"What was our customer churn rate in FY2025?", "Quanto abbiamo speso in pubblicità nel 2025?",
"2025年的广告费用是多少？": the fact table has no such figure, and a bare menu of metrics would
suggest the bot did not understand. The design's rule stays (a missing metric asks first, with
the metric buttons), but the reply first says plainly what it has no figure for. The phrase is
the question's words left once every glossary name, period and question word is taken out; it
is the reader's own words, so it says nothing about what the fact table or a restricted
document holds, and the sentence is the same in every chat.
"""

from __future__ import annotations

import datetime as dt
import re

from core.catalog.lookup import say
from core.contracts.types import Notice
from core.knowledge.names import NameIndex
from core.question.periods import find_periods

NO_FIGURE = "no_figure"  # the notice kind in ask --json
# words that ask, point or fill, never the subject (a question's frame), per language
_FRAME_WORDS = """
    what whats what's was is were are how much many did do does we our us the a an of in on for
    at by to from during spend spent spending cost costs give show tell me please total
    figure figures number numbers data value amount year years fy last this latest current
    quanto quanti quanta quante abbiamo hanno ha è e era sono qual quale quali il lo la i gli le
    del della dello dei degli delle di in nel nella nei negli nelle per su sul sulla da dal
    nostro nostra nostri nostre speso spesa spese costo dato dati numero valore anno totale
    mostrami dimmi
"""
_FRAME = frozenset(_FRAME_WORDS.split())
_ZH_FRAME = re.compile(
    r"我们的|我们|我司|公司的|是多少|有多少|多少|是什么|怎么样|如何|请问|的|了|吗|呢|年度|财年|年"
)
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_BREAK = re.compile(r"[^\w\s'’-]|\s{2,}")
_HAN = re.compile(r"[\u4e00-\u9fff]+")


def missing_subject(text: str, names: NameIndex, reference: dt.date, language: str) -> str:
    """The words naming what is asked about ("customer churn rate"), or "" when none is left
    (the question named only units, periods and question words: a plain menu is right)."""
    spans = [(m.start, m.end) for m in names.find(text)]
    spans += [(p.start, p.end) for p in find_periods(text, reference,
                                                     names.glossary.fiscal_year_end)]
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    rest = "".join(chars)
    if language == "zh":
        runs = [_ZH_FRAME.sub(" ", r).split() for r in _HAN.findall(rest)]
        pieces = [p for run in runs for p in run if len(p) >= 2]
        return max(pieces, key=len) if pieces else ""
    best: list[str] = []
    for segment in _BREAK.split(rest):  # punctuation and a blanked name end a phrase
        run: list[str] = []
        for word in (w.strip("'’-") for w in _WORD.findall(segment + " ")):
            if word.casefold() in _FRAME or len(word) < 3:
                best, run = (run if len(run) > len(best) else best), []
            else:
                run.append(word)
        best = run if len(run) > len(best) else best
    return " ".join(best)


def no_figure_notice(subject: str, language: str) -> Notice:
    """"I have no figure for customer churn rate." (kind `no_figure` in ask --json)."""
    return Notice(say("no_figure", language, subject=subject), NO_FIGURE)
