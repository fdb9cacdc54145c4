"""Questions about several figures at once: a series over periods, a breakdown over members,
a ranking, a comparison. Rules only, on the text the intent parser has already read.

What is detected here decides the *shape* of the answer (a table), never a number: the numbers
are still exact lookups in the fact table (core.figures.tabulate). Forms:

- series: "from FY2021 to FY2025", "2021-2025", "between 2021 and 2025", "dal 2021 al 2025",
  "2021年至2025年", "last 3 years", "gli ultimi tre anni", "近三年", "2025 quarter by quarter",
  "monthly in 2025", "每季度", and "trend" on a metric ("China revenue trend": the last five
  fiscal years; "trend in 2025": its quarters). "2021 and 2025" stays two periods.
- breakdown: "by entity", "per unit", "per canale", "by channel", "各地区", "按渠道".
- ranking: "which unit grew fastest", "highest gross margin", "top channel by revenue".
- comparison: two named entities (or channels) with "vs", "compared with", "rispetto a", "对比".
- arithmetic (core.figures.aggregate, core.figures.change): a sum or an average over a range
  of periods or over named members ("total EBITDA FY2021-FY2023", "organico medio 2022-2024",
  "combined revenue of Italy and Hong Kong", "意大利和香港的营收合计"); the growth of one period
  against the previous comparable one ("EBITDA growth for Italy last year", "净利润同比"); one
  member's share of its whole ("how much of group revenue is Hong Kong", "香港占集团营收的比例");
  whether one member grew faster than another; and rankings over periods ("in which year was
  net income highest?", "哪一年净利润最高").
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from core.contracts.types import Period, PeriodType
from core.fiscal_calendar import (
    fiscal_half_of,
    fiscal_quarter_of,
    fiscal_year_bounds,
    fiscal_year_of,
    last_complete_fiscal_year,
    shift_period,
)
from core.question.count_parse import detect_count
from core.question.period_atoms import chinese_number
from core.question.period_grammar import YTD_CJK
from core.question.periods import PeriodMatch

_TOTAL = "TOTAL"  # the total channel's code (core.figures.structured.TOTAL)
MAX_SERIES = 24  # more periods than this is not a table a chat can read
MAX_COLUMNS = 8  # a breakdown over more periods than this is too wide for a chat
MAX_METRICS = 4  # a breakdown of more metrics than this is too wide for a chat
TREND_YEARS = 5  # "revenue trend" with no period: the last five fiscal years

__all__ = ["Analysis", "detect_analysis", "expand", "from_shape"]


@dataclass(frozen=True)
class Analysis:
    """The table a question asks for. `spans` are the cue words, which are not "why" cues."""

    kind: str  # series | breakdown | ranking | comparison
    periods: tuple[Period, ...] = ()  # series: every period, oldest first
    dimension: str = "entity"  # breakdown, ranking, comparison: entity | channel
    measure: str = "value"  # ranking: value | growth
    descending: bool = True
    assumed_metric: str = ""  # "which unit grew fastest?" names no metric: the first one
    assumed_period: bool = False  # no period named: the last complete fiscal year
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    # a ranking over periods ("which quarter…"): the period type ranked (FY, HY, Q, M)
    grain: str = ""
    # a range written longer than a table holds ("FY1800–FY2024"): its two ends; `periods`
    # are then its most recent MAX_SERIES (core.figures.period_coverage clips to the data)
    asked: tuple[Period, ...] = ()
    # a count ("how many units had revenue above €100M"): the threshold as written, and
    # whether it carried a scale or currency (core.question.count_parse)
    threshold: Decimal | None = None
    scaled: bool = False

    def shape(self) -> str:
        """What a follow-up keeps of this table ("and FY2023?" after a breakdown by entity is
        that breakdown for FY2023): kind, dimension, measure and order, never its periods or
        members, which are the conversation's slots."""
        order = "desc" if self.descending else "asc"
        return f"{self.kind}:{self.dimension}:{self.measure}:{order}"


_SHAPE = re.compile(r"(series|breakdown|ranking|comparison):(entity|channel):(value|growth)"
                    r":(asc|desc)")


def from_shape(
    shape: str, periods: list[Period], *, entities: int, channels: int
) -> Analysis | None:
    """The table of `Analysis.shape` over a follow-up's resolved slots, or None when they no
    longer make that table (a series needs several periods, a ranking or a comparison one at
    most, a comparison two members) or the shape is not one this module writes."""
    m = _SHAPE.fullmatch(shape)
    if m is None:
        return None
    kind, dimension, measure, order = m.groups()
    if kind == "series":
        if not 2 <= len(periods) <= MAX_SERIES:
            return None
        return Analysis("series", periods=tuple(periods))
    if kind == "breakdown":
        if len(periods) > MAX_COLUMNS:
            return None
        over = tuple(periods) if len(periods) > 1 else ()
        return Analysis("breakdown", periods=over, dimension=dimension,
                        assumed_period=not periods)
    if len(periods) > 1:
        return None
    if kind == "comparison":
        if (entities if dimension == "entity" else channels) < 2:
            return None
        return Analysis("comparison", dimension=dimension, assumed_period=not periods)
    return Analysis("ranking", dimension=dimension, measure=measure,
                    descending=order == "desc", assumed_period=not periods)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NUM_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "twelve": 12, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
    "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "dodici": 12,
}
_UNIT_WORDS = {
    "year": "FY", "years": "FY", "fiscal years": "FY", "anni": "FY", "esercizi": "FY",
    "年": "FY", "财年": "FY", "quarters": "Q", "trimestri": "Q", "季度": "Q", "个季度": "Q",
    "halves": "HY", "half-years": "HY", "semestri": "HY", "半年": "HY", "months": "M",
    "mesi": "M", "个月": "M", "月": "M",
}
_LAST_N = _rx(
    r"(?<!\w)(?:last|past|previous|recent|the\s+last|ultim[ie]|scors[ie]|passat[ie])\s+"
    r"(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twelve|due|tre|quattro|cinque|sei"
    r"|sette|otto|nove|dieci|dodici)\s+(fiscal\s+years|years|quarters|half-years|halves|months"
    r"|anni|esercizi|trimestri|semestri|mesi)(?!\w)"
    r"|(?:近|最近|过去)\s*([0-9一二两三四五六七八九十]{1,3})\s*(财年|年|个季度|季度|半年|个月)"
)
_GRAIN = [
    ("Q", _rx(r"季均|quarter[\s-]+by[\s-]+quarter|(?<!\w)quarterly(?!\w)"
              r"|(?<!\w)(?:by|per|each|every)\s+quarter(?!\w)|trimestre\s+per\s+trimestre|(?<!\w)trimestral[ei](?!\w)"
              r"|(?<!\w)(?:per|ogni)\s+trimestre(?!\w)|每季度|各季度|分季度|按季度|逐季|季度平均")),
    ("M", _rx(r"月均|month[\s-]+by[\s-]+month|(?<!\w)monthly(?!\w)|(?<!\w)(?:by|per|each|every)"
              r"\s+month(?!\w)|mese\s+per\s+mese|(?<!\w)mensil[ei](?!\w)|(?<!\w)(?:per|ogni)"
              r"\s+mese(?!\w)|每月|各月|按月|逐月|月度")),
    ("HY", _rx(r"half[\s-]+by[\s-]+half|(?<!\w)semi-?annual(?:ly)?(?!\w)"
               r"|(?<!\w)(?:mean|average|avg)\s+half[\s-]+year(?:ly)?(?!\w)|(?<!\w)(?:by|per)"
               r"\s+half(?!\w)|(?<!\w)semestral[ei](?!\w)|(?<!\w)per\s+semestre(?!\w)"
               r"|每半年|按半年|半年度")),
]
# "year to date" and "the last twelve months": a span of months that, for a flow, is one sum
# (core.figures.aggregate); "last 12 months" with a grain or a trend word stays a series
_YTD = _rx(
    r"(?<!\w)(?:(?:this|the|current)\s+(?:fiscal\s+)?)?year[\s-]+to[\s-]+date(?!\w)"
    r"|(?<!\w)f?ytd(?!\w)|(?<!\w)(?:da|dall['’])\s?inizio\s+(?:d(?:ell['’]\s?|el\s+)?)?"
    r"(?:anno|esercizio)(?!\w)|" + YTD_CJK
)
_LTM = _rx(
    r"(?<!\w)(?:the\s+)?(?:last|past|trailing|previous)\s+(?:twelve|12)\s+months(?!\w)"
    r"|(?<!\w)(?:ltm|ttm)(?!\w)|(?<!\w)(?:(?:gli|negli)\s+)?ultimi\s+(?:dodici|12)\s+mesi(?!\w)"
    r"|(?:过去|最近|近)\s*(?:十二|12)\s*个月"
)
_TREND = _rx(
    r"(?<!\w)(?:trends?|over\s+time|evolution|history|historical|andamento|tendenza"
    r"|evoluzione|storico|nel\s+tempo)(?!\w)|变化趋势|趋势|走势|历年"
)
_RANGE_BEFORE = _rx(
    r"(?:(?<!\w)(?:from|between|dal|dall['’]|da|tra|fra)(?:\s+(?:il|the|fy|gli|i|the\s+years"
    r"|(?:gli\s+)?(?:esercizi|anni)|(?:the\s+)?fiscal\s+years))?|从)\s*$"
)
_RANGE_GAP = _rx(r"\s*(?:-|–|—|~|～|to|till|until|through|thru|al|all['’]|a|fino\s+al|至|到)\s*")
_AND_GAP = _rx(r"\s*(?:and|e|和|与)(?:\s+(?:il|the))?\s*")
_SPLIT_YEARS = re.compile(r"((?:19|20)\d{2})\s*[-–]\s*(\d{2})")
_LOW = _rx(
    r"(?<!\w)(?:lowest|smallest|least|fewest|weakest|worst|slowest|bottom|più\s+bass[oaie]|minore|minori"
    r"|peggiore|peggiori|più\s+lent[oaie]|meno)(?!\w)|最低|最小|最少|最慢|最差"
)
_GROWTH_RANK = _rx(
    r"(?<!\w)(?:grew|grown|grow|growing|growth|increased?)(?!\w).{0,20}?(?<!\w)(?:fastest"
    r"|most|quickest|least|slowest|the\s+most|the\s+least)(?!\w)"
    r"|(?<!\w)(?:fastest|slowest)[\s-]+(?:growing|growth)(?!\w)"
    r"|(?<!\w)(?:cresciut[oaie]|cresce|crescere)(?!\w).{0,12}?(?<!\w)(?:di\s+più|di\s+meno"
    r"|maggiormente)(?!\w)|crescita\s+(?:maggiore|più\s+(?:alta|forte|rapida)|minore)"
    r"|增长最快|增速最快|增长最多|涨幅最大|增长最慢|增速最慢"
)
_VALUE_RANK = _rx(
    r"(?<!\w)(?:highest|largest|biggest|top|best|lowest|smallest|worst|bottom|rank|ranking"
    r"|ranked|classifica|migliore|migliori|peggiore|peggiori|maggiore|minore"
    r"|fewest|least|most(?!\s+recent)|greatest|weakest|strongest"
    r"|più\s+(?:alt[oaie]|elevat[oaie]|bass[oaie]|grande|piccol[oaie]))(?!\w)"
    r"|(?<!\w)(?:chi|quale|quali|che|in\s+che)(?!\w).{0,40}?(?<!\w)(?:più|meno|di\s+più"
    r"|di\s+meno)(?!\w)"
    r"|最高|最大|最多|最低|最小|最少|排名|排行"
)
_COMPARE = _rx(
    r"(?<!\w)(?:vs\.?|versus|compared?\s+(?:to|with)|compare|against|rispetto\s+a|confronta"
    r"|confronto|contro)(?!\w)|对比|比较|相比|相较"
)
_CHANNEL_WORD = _rx(r"(?<!\w)(?:channels?|canal[ei])(?!\w)|渠道")
_BY_ENTITY = _rx(
    r"(?<!\w)(?:by|per|across|for\s+each|each)\s+(?:business\s+units?|entit(?:y|ies)|units?"
    r"|subsidiar(?:y|ies)|regions?|countr(?:y|ies)|compan(?:y|ies)|markets?|segments?)(?!\w)"
    r"|(?<!\w)per\s+(?:entità|società|unità|paese|paesi|regione|regioni|mercato|mercati"
    r"|controllat[ae])(?!\w)"
    r"|各地区|各区域|分地区|按地区|各子公司|按子公司|各部门|按部门|各主体|按主体|各市场|按市场"
    r"|各分部|按分部|各区"
)
_BY_CHANNEL = _rx(
    r"(?<!\w)(?:by|per|across|for\s+each|each)\s+(?:sales\s+)?channels?(?!\w)"
    r"|(?<!\w)per\s+canal[ei](?!\w)|各渠道|分渠道|按渠道"
)

# arithmetic (core.figures.aggregate, core.figures.change): sums, averages, growth, shares.
# The total channel's own names ("total", "totale", "合计", "总计") are blanked as a channel
# before these run: naming that channel is a sum cue too (detect_analysis)
_SUM = _rx(
    r"(?<!\w)(?:combined|together|altogether|in\s+total|sum(?:med)?|cumulative|cumulated"
    r"|aggregate[d]?|added\s+up|insieme|in\s+tutto|somma(?:ti|te|to)?|sommando"
    r"|cumulat[oiae]|complessivamente)(?!\w)|加起来|总和|一共|共计|合共|累计|加总|总共"
)
_AVERAGE = _rx(
    r"(?<!\w)(?:average|avg|mean|medi[oaie]?|mediamente|in\s+media)(?!\w)|平均|均值|月均|季均"
    r"|年均"
)
_GROWTH = _rx(
    r"(?<!\w)(?:growth|grow|grew|grown|growing|yoy|y/y|year[\s-]+(?:over|on)[\s-]+year"
    r"|qoq|q/q|quarter[\s-]+(?:over|on)[\s-]+quarter|increase[ds]?|change[ds]?|decline[ds]?"
    r"|crescita|cresciut[oaie]|crescere|cresce|variazione|aumento|incremento|calo"
    r"|diminuzione)(?!\w)|同比|环比|增长|增速|增幅|变化|变动|下降|下滑"
    r"|(?<!\w)(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+(?:the\s+)?(?:previous|prior"
    r"|last\s+year|a\s+year\s+(?:earlier|before))(?!\w)"
    r"|(?<!\w)rispetto\s+(?:al|all['’]|a)\s*(?:precedente|anno\s+(?:precedente|prima))(?!\w)"
    r"|比上期|较上期|较上年|比上年"
)
_SEQUENTIAL = _rx(
    r"(?<!\w)(?:qoq|q/q|quarter[\s-]+(?:over|on)[\s-]+quarter|sequential(?:ly)?"
    r"|(?:previous|prior|last|preceding)\s+(?:quarter|half|month)"
    r"|congiuntural[ei]|(?:trimestre|semestre|mese)\s+precedente)(?!\w)"
    r"|(?<!\w)(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+(?:the\s+)?(?:previous|prior)"
    r"(?!\s+(?:fiscal\s+)?year)(?!\w)|(?<!\w)rispetto\s+al\s+precedente(?!\w)|比上期|较上期"
    r"|环比|上季度|上一季度|上个季度|上半期|上月|上个月"
)
_FASTER = _rx(
    r"(?<!\w)(?:faster|slower|quicker|more|less)\s+(?:than|of)(?!\w)"
    r"|(?<!\w)(?:faster|slower|quicker)(?!\w)"
    r"|(?<!\w)più\s+(?:velocemente|rapidamente|in\s+fretta)?\s*(?:di|del|della|dell['’])"
    r"|(?<!\w)meno\s+(?:di|del|della|dell['’])(?!\w)"
    r"|比.{0,12}?(?:快|慢|多|高|低)|更快|更慢"
)
_GREW_MORE = _rx(r"(?<!\w)(?:grew|grown|grow|growing|increased?)\s+(?:more|less)(?!\w)")
_EITHER = _rx(r"(?<!\w)(?:or|o|oppure|either)(?!\w)|还是|或者|或")  # "A or B": the two named
_SLOWER = _rx(r"(?<!\w)(?:slower|less)(?!\w)|(?<!\w)meno(?!\w)|慢")
_SHARE = _rx(
    r"(?<!\w)(?:share|portion|proportion|percentage|fraction|part|how\s+much\s+of"
    r"|contribut(?:e|es|ed|ion)|quota|percentuale|peso|incidenza|parte)(?!\w)"
    r"|%\s*(?:of|di)(?!\w)|占|比例|份额|比重"
)
# a question about the periods themselves: "in which year", "which quarter", "哪一年"
_PERIOD_QUESTION = _rx(
    r"(?<!\w)(?:which|what)\s+(?:fiscal\s+)?(year|quarter|half|month)(?!\w)"
    r"|(?<!\w)(?:che|quale|qual|quali)\s+(anno|esercizio|trimestre|semestre|mese)(?!\w)"
    r"|哪(?:一|个|些)?\s*(财年|年度|年|季度|个季度|半年|个月|月)"
)
# "which year had the bigger operating cash flow?": a comparative ranks the periods too
_COMPARATIVE = _rx(
    r"(?<!\w)(?:bigger|higher|larger|greater|better|more|lower|smaller|fewer|less|worse"
    r"|maggiore|minore|migliore|peggiore|più|piu|meno)(?!\w)"
    r"|更高|更大|更多|更低|更小|更少|较高|较低|较大|较小"
)
_COMPARATIVE_LOW = _rx(
    r"(?<!\w)(?:lower|smaller|fewer|less|worse|minore|peggiore|meno)(?!\w)|più\s+(?:bass|piccol)"
    r"|更低|更小|更少|较低|较小"
)
# "which unit had the higher margin?", "quale regione ha più dipendenti?", "哪个区域营收更高": a
# comparative after a question about members asks for the first of a ranking
_MEMBER_WHICH = _rx(
    r"(?<!\w)(?:which|what)\s+(?!(?:is|was|are|were|has|had|did|does|do|one|of|fiscal|year"
    r"|years|quarter|quarters|half|month|months)(?!\w))[^\W\d_]+"
    r"|(?<!\w)(?:quale|quali)\s+(?!(?:è|e|era|sono|di|anno|esercizio|trimestre|semestre"
    r"|mese)(?!\w))[^\W\d_]+"
    r"|哪(?:一个|个|家|些)(?![年季月半财])"
)
_GRAIN_WORDS = {
    "year": "FY", "anno": "FY", "esercizio": "FY", "财年": "FY", "年度": "FY", "年": "FY",
    "quarter": "Q", "trimestre": "Q", "季度": "Q", "个季度": "Q", "half": "HY",
    "semestre": "HY", "半年": "HY", "month": "M", "mese": "M", "个月": "M", "月": "M",
}


# Every cue above contains one of these: a question with none of them (and fewer than two
# periods) is a plain lookup, decided with one scan instead of a dozen.
_HINTS = (
    "trend", "over", "evol", "histor", "andament", "tendenz", "storic", "tempo", "quarter",
    "month", "half", "semi", "trimestr", "mensil", "mese", "semestr", "last", "past",
    "previous", "recent", "ultim", "scors", "passat", "grew", "grow", "increas", "fast",
    "slow", "most", "least", "cresc", "maggior", "high", "larg", "big", "top", "best",
    "low", "small", "worst", "bottom", "rank", "classific", "miglior", "peggior", "minor",
    "più", "vs", "versus", "compar", "against", "rispetto", "confront", "contro", "by",
    "per", "across", "each", "趋势", "走势", "历年", "季", "月", "半年", "近", "最", "过去",
    "排", "增", "对比", "比较", "相比", "相较", "各", "分", "按",
    # arithmetic
    "combin", "togeth", "total", "sum", "cumul", "aggreg", "added", "insiem", "tutto",
    "somm", "complessiv", "averag", "avg", "mean", "medi", "yoy", "y/y", "qoq", "q/q",
    "chang", "declin", "variaz", "aument", "increm", "calo", "diminu", "sequential",
    "congiuntural", "precedente", "share", "portion", "propor", "percent", "fraction", "part",
    "contribut", "quota", "peso", "incidenz", "%", "fewest", "more", "less", "meno",
    "faster", "slower", "quicker", "加起来", "总和", "一共",
    "共计", "合共", "累计", "加总", "总共", "平均", "均值", "同比", "环比", "变", "下降", "下滑",
    "占", "比例", "份额", "比重", "快", "慢", "much of", "上期", "上年",
    # year to date, the last twelve months
    "date", "ytd", "inizio", "以来", "迄今", "至今", "ltm", "ttm", "均",
    # comparatives over periods ("which year had the bigger …")
    "greater", "better", "worse", "fewer", "更", "较",
    # counts
    "many", "quant", "几", "多少",
)


def detect_analysis(
    text: str,
    matches: list[PeriodMatch],
    *,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    reference_date: dt.date,
    fiscal_year_end: str,
    first_metric: str,
) -> Analysis | None:
    """The table `text` asks for, or None for a plain lookup. `text` has the glossary's names
    blanked (so "top line" or "Italia" cannot be read as a cue); `matches` are its periods."""
    # the total channel's own names ("total", "totale", "合计") are blanked out of `text`:
    # naming it is a sum cue ("total EBITDA FY2021-FY2023", "意大利和香港的营收合计")
    total_named = _TOTAL in channels
    if len(matches) < 2 and all(m.period is not None for m in matches) and not total_named:
        folded = text.casefold()
        if not any(hint in folded for hint in _HINTS):
            return None
    periods = [m.period for m in matches if m.period is not None]
    count = detect_count(text, periods, metrics)
    if count is not None:
        return _count(count, text, matches, periods, reference_date, fiscal_year_end)
    months = _months_span(text, reference_date, fiscal_year_end) if len(metrics) == 1 else None
    if months is not None:
        return months
    arithmetic = _arithmetic(
        text, matches, metrics=metrics, entities=entities, channels=channels, periods=periods,
        first_metric=first_metric, total_named=total_named, reference_date=reference_date,
        fiscal_year_end=fiscal_year_end,
    )
    if arithmetic is not None:
        return arithmetic
    ranking = _ranking(text, metrics, entities, channels, periods, first_metric)
    if ranking is not None:
        return ranking
    compare = _COMPARE.search(text)
    if compare and len(periods) <= 1 and len(metrics) == 1:
        if len(entities) >= 2 or len(channels) >= 2:
            dimension = "entity" if len(entities) >= 2 else "channel"
            return Analysis("comparison", dimension=dimension, assumed_period=not periods,
                            spans=(compare.span(),))
        return None
    for pattern, dimension in ((_BY_CHANNEL, "channel"), (_BY_ENTITY, "entity")):
        by = pattern.search(text)
        if by and 1 <= len(metrics) <= MAX_METRICS:
            # over several periods ("by entity, 2021-2025", "for FY2024 and FY2025"): a column
            # per period; several metrics ("revenue and EBITDA by entity"): a column per metric,
            # for one period
            series = _series(text, matches, reference_date, fiscal_year_end)
            over = series.periods if series else tuple(periods) if len(periods) > 1 else ()
            if len(metrics) > 1 and over:
                break  # a column per metric and period: too wide; each metric's series
            if len(over) > MAX_COLUMNS:
                return None
            spans = (by.span(), *(series.spans if series else ()))
            return Analysis("breakdown", periods=over, dimension=dimension,
                            assumed_period=not periods and not over, spans=spans)
    if not metrics:
        # an explicit range without a metric ("and China from FY2021 to FY2024?" in a
        # conversation, "Orbis China 2021-2024" with the metric then tapped): the series of
        # the metric it gets, not the range's two ends
        explicit = _explicit_range(text, matches)
        if explicit is None or not 2 <= len(explicit) <= MAX_SERIES:
            return None
        return Analysis("series", periods=tuple(explicit))
    return _series(text, matches, reference_date, fiscal_year_end)


def _arithmetic(
    text: str,
    matches: list[PeriodMatch],
    *,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    periods: list[Period],
    first_metric: str,
    total_named: bool,
    reference_date: dt.date,
    fiscal_year_end: str,
) -> Analysis | None:
    """A ranking over periods, a growth comparison, a share, a growth, a sum or an average;
    None when the question asks for none of them (or for one with the wrong slots)."""
    members = [c for c in channels if c != _TOTAL]
    growth = _GROWTH.search(text)
    cue = _VALUE_RANK.search(text) or _GROWTH_RANK.search(text)
    asked = _PERIOD_QUESTION.search(text)
    comparative = _COMPARATIVE.search(text) if asked and not cue else None
    if asked and comparative and len(metrics) == 1 and len(entities) <= 1:
        cue = comparative
    if asked and cue and len(metrics) == 1 and len(entities) <= 1:
        # "in which year was net income highest?": the periods are what is ranked
        word = next(g for g in asked.groups() if g)
        series = _series(text, matches, reference_date, fiscal_year_end)
        over = series.periods if series else tuple(periods) if len(periods) > 1 else ()
        grain = _GRAIN_WORDS.get(word.casefold(), "FY")
        if not over and len(periods) == 1 and grain != "FY":  # "which quarter of 2025"
            over = tuple(_within(periods[0], grain, fiscal_year_end))
        elif grain != "FY" and over and all(p.type is PeriodType.FY for p in over):
            # "which half, between FY2023 and FY2026": the halves of those years
            years = _explicit_range(text, matches) or list(over)
            over = tuple(p for fy in years for p in _within(fy, grain, fiscal_year_end))
        low = _COMPARATIVE_LOW.search(text) if comparative else _LOW.search(text)
        return Analysis("ranking", periods=over, dimension="period", measure="value",
                        descending=low is None, grain=grain,
                        spans=(asked.span(), cue.span()))
    listed = len(periods) > 1 and _range_ends(text, matches) is None
    if len(metrics) > 1 or (listed and not (_SUM.search(text) or _AVERAGE.search(text)
                                            or total_named)):
        return None  # "China revenue 2024 and 2025": two figures, as before
    dimension = "entity" if len(entities) >= 2 else "channel" if len(members) >= 2 else ""
    faster = _FASTER.search(text)
    ranked = _GROWTH_RANK.search(text) or _GREW_MORE.search(text)
    either = _EITHER.search(text)
    if ranked and either and dimension and len(periods) <= 1 and len(metrics) <= 1 \
            and len(entities if dimension == "entity" else members) == 2:
        # "è cresciuto di più l'utile dell'Italia o quello della Cina?": which of the two
        # named grew more is the comparison of those two, not a ranking of every unit
        slower = _LOW.search(ranked.group(0)) or _SLOWER.search(ranked.group(0))
        return Analysis("growth_comparison", dimension=dimension, measure="growth",
                        descending=slower is None,
                        assumed_metric="" if metrics else first_metric,
                        assumed_period=not periods, spans=(ranked.span(), either.span()))
    if growth and faster and dimension and len(periods) <= 1 and len(metrics) <= 1:
        # "did China grow faster than Italy in FY2024?"
        return Analysis("growth_comparison", dimension=dimension, measure="growth",
                        descending=_SLOWER.search(faster.group(0)) is None,
                        assumed_metric="" if metrics else first_metric,
                        assumed_period=not periods, spans=(growth.span(), faster.span()))
    if len(metrics) != 1 or cue is not None:
        return None
    share = _SHARE.search(text)
    if share and not growth and len(periods) <= 1 and (entities or members) \
            and len(entities) <= 2 and len(members) <= 1:
        # "how much of group revenue is Hong Kong", "share of online in China's revenue"
        return Analysis("share", dimension="channel" if members else "entity",
                        assumed_period=not periods, spans=(share.span(),))
    total = _SUM.search(text)
    mean = _AVERAGE.search(text)
    spans = tuple(m.span() for m in (total, mean) if m is not None)
    if (total or mean or total_named) and dimension and len(periods) <= 1 \
            and not _COMPARE.search(text):
        # "combined revenue of Italy and Hong Kong", "意大利和香港的营收合计"
        return Analysis("aggregate", dimension=dimension,
                        measure="average" if mean else "sum", assumed_period=not periods,
                        spans=spans)
    if growth and len(periods) <= 1 and not dimension and not _TREND.search(text) \
            and not any(p.search(text) for _, p in _GRAIN) and not _LAST_N.search(text):
        # "EBITDA growth for Italy last year", "净利润同比", "H1 2025 vs previous"
        sequential = _SEQUENTIAL.search(text)
        return Analysis("growth", measure="sequential" if sequential else "yoy",
                        assumed_period=not periods,
                        spans=(growth.span(), *((sequential.span(),) if sequential else ())))
    if (total or mean or total_named) and not dimension and len(entities) <= 1 \
            and not _BY_ENTITY.search(text) and not _BY_CHANNEL.search(text) \
            and not _TREND.search(text):
        # "total EBITDA FY2021-FY2023", "organico medio 2022-2024": over a range of periods
        series = _series(text, matches, reference_date, fiscal_year_end)
        over = series.periods if series else tuple(periods)
        if 2 <= len(over) <= MAX_SERIES:
            return Analysis("aggregate", periods=tuple(over), dimension="period",
                            measure="average" if mean else "sum",
                            spans=spans + (series.spans if series else ()),
                            asked=series.asked if series else ())
    return None


def _count(count: dict[str, Any], text: str, matches: list[PeriodMatch], periods: list[Period],
           reference_date: dt.date, fye: str) -> Analysis:
    """A count over members (for the question's period) or over periods (those of the named
    range or year, else every stored one of that grain, within the lookup bound)."""
    grain = count["grain"]
    over: tuple[Period, ...] = ()
    if count["over"] == "period":
        series = _explicit_range(text, matches)
        if series:
            over = tuple(p for fy in series for p in _within(fy, grain, fye))
        elif len(periods) == 1 and periods[0].type is PeriodType.FY and grain != "FY":
            over = tuple(_within(periods[0], grain, fye))
    return Analysis("count", periods=over, dimension=count["over"], measure=count["test"],
                    grain=grain, threshold=count["amount"], scaled=count["scaled"],
                    assumed_period=count["over"] == "entity" and not periods,
                    spans=(count["span"],))


def _months_span(text: str, reference_date: dt.date, fye: str) -> Analysis | None:
    """"Revenue year to date", "ordini ultimi dodici mesi", "今年以来营收": the sum (an average
    when asked) over the months from the fiscal year's start, or the last twelve, to the last
    complete month; None when neither is asked, or a grain or trend word asks for a series."""
    ytd, ltm = _YTD.search(text), _LTM.search(text)
    cue = ytd or ltm
    if cue is None or _TREND.search(text) or any(p.search(text) for _, p in _GRAIN):
        return None
    last = reference_date.replace(day=1) - dt.timedelta(days=1)
    last_month = Period(PeriodType.M, f"{last.year}-{last.month:02d}")
    if ytd is not None:
        start = fiscal_year_bounds(fiscal_year_of(reference_date, fye), fye)[0]
        first = Period(PeriodType.M, f"{start.year}-{start.month:02d}")
        if first.value > last_month.value:  # the year's first month is not over yet
            last_month = first
        over = [first, *(expand(first, last_month) or [])[1:]]
    else:
        over = [shift_period(last_month, -i) for i in range(11, -1, -1)]
    mean = _AVERAGE.search(text)
    spans = (cue.span(), *((mean.span(),) if mean else ()))
    return Analysis("aggregate", periods=tuple(over), dimension="period",
                    measure="average" if mean else "sum", spans=spans)


def _ranking(
    text: str,
    metrics: list[str],
    entities: list[str],
    channels: list[str],
    periods: list[Period],
    first_metric: str,
) -> Analysis | None:
    growth = _GROWTH_RANK.search(text)
    value = None if growth else _VALUE_RANK.search(text)
    comparative = None
    if growth is None and value is None and _MEMBER_WHICH.search(text):
        value = comparative = _COMPARATIVE.search(text)
    cue = growth or value
    between: tuple[Period, ...] = ()
    if growth and len(periods) == 2 and periods[0].type is periods[1].type \
            and periods[0] != periods[1]:
        # "which unit grew most between FY2022 and FY2024?": growth from the first to the last
        between = tuple(sorted(periods))
    if cue is None or (len(periods) > 1 and not between) or len(metrics) > 1:
        return None
    if value is not None and not metrics:
        return None  # "the highest what?": asked as a plain clarification
    channel_words = _CHANNEL_WORD.search(text)
    dimension = "channel" if channel_words or len(channels) >= 2 else "entity"
    if len(entities) == 1 and dimension == "entity":
        return None  # "China's highest revenue": not a ranking of units
    low = _COMPARATIVE_LOW.search(text) if comparative else _LOW.search(text)
    spans = [cue.span()] + ([channel_words.span()] if channel_words else [])
    return Analysis(
        "ranking",
        periods=between,
        dimension=dimension,
        measure="growth" if growth else "value",
        descending=low is None,
        assumed_metric="" if metrics else first_metric,
        assumed_period=not periods,
        spans=tuple(spans),
    )


def _series(
    text: str, matches: list[PeriodMatch], reference_date: dt.date, fiscal_year_end: str
) -> Analysis | None:
    spans: list[tuple[int, int]] = []
    grain = None
    for kind, pattern in _GRAIN:
        m = pattern.search(text)
        if m:
            grain, spans = kind, [m.span()]
            break
    trend = _TREND.search(text)
    if trend:
        spans.append(trend.span())
    periods = _explicit_range(text, matches)
    ends = _long_range(text, matches) if periods is None else None
    if ends is not None:
        periods = _tail(*ends)
    if periods is None:
        last_n = _LAST_N.search(text)
        if last_n is not None:
            periods = _last_n(last_n, reference_date, fiscal_year_end)
            spans.append(last_n.span())
    if periods is None and (grain or trend):
        found = [m.period for m in matches if m.period is not None]
        if len(found) == 1 and found[0].type is PeriodType.FY:
            periods = [found[0]]
            grain = grain or "Q"  # "revenue trend in 2025": its quarters
        elif not found and not [m for m in matches if m.period is None]:
            last = last_complete_fiscal_year(reference_date, fiscal_year_end)
            periods = [shift_period(last, -i) for i in range(TREND_YEARS - 1, -1, -1)]
            if grain:
                periods = [last]
    if not periods:
        return None
    if grain:
        periods = [p for fy in periods for p in _within(fy, grain, fiscal_year_end)]
    if len(periods) < 2 or len(periods) > MAX_SERIES:
        return None
    return Analysis("series", periods=tuple(periods), spans=tuple(spans), asked=ends or ())


def _explicit_range(text: str, matches: list[PeriodMatch]) -> list[Period] | None:
    """Every period from the first to the second of two joined by a range connector."""
    ends = _range_ends(text, matches)
    return expand(*ends) if ends is not None else None


def _long_range(text: str, matches: list[PeriodMatch]) -> tuple[Period, Period] | None:
    """The two ends of a range too long for one table ("FY1800–FY2024"), else None."""
    ends = _range_ends(text, matches)
    if ends is None or ends[0].type is not ends[1].type or ends[1].value <= ends[0].value:
        return None
    return ends if expand(*ends) is None else None


def _tail(first: Period, last: Period) -> list[Period]:
    """The most recent MAX_SERIES periods of first..last."""
    out = [last]
    while len(out) < MAX_SERIES and out[-1] != first:
        out.append(shift_period(out[-1], -1))
    return out[::-1]


def _range_ends(text: str, matches: list[PeriodMatch]) -> tuple[Period, Period] | None:
    for m in matches:
        split = _SPLIT_YEARS.fullmatch(m.raw) if m.period is None else None
        if split:  # "2021-25": a range the period grammar rejects as a split fiscal year
            first, last = int(split.group(1)), int(split.group(1)[:2] + split.group(2))
            if last > first:
                return Period(PeriodType.FY, str(first)), Period(PeriodType.FY, str(last))
    for a, b in itertools.pairwise(matches):
        if a.period is None or b.period is None or a.period.type is not b.period.type:
            continue
        gap = text[a.end : b.start]
        before = text[max(0, a.start - 24) : a.start]
        joined = _RANGE_GAP.fullmatch(gap) is not None
        if not joined and _AND_GAP.fullmatch(gap) and _RANGE_BEFORE.search(before):
            joined = True  # "between 2021 and 2025"; "2021 and 2025" stays two periods
        if joined and _RANGE_BEFORE.search(before) is None and gap.strip() in ("a", "al"):
            joined = False  # "a"/"al" alone ("Q1 al 2025"?) only after "da"/"dal"
        if joined:
            return a.period, b.period
    return None


def expand(first: Period, last: Period) -> list[Period] | None:
    """first..last inclusive (same type), or None when reversed or too long."""
    if first.type is not last.type or last.value <= first.value:
        return None
    out = [first]
    while out[-1] != last:
        if len(out) > MAX_SERIES:
            return None
        out.append(shift_period(out[-1], 1))
    return out if len(out) >= 2 else None


def _last_n(m: re.Match[str], reference_date: dt.date, fye: str) -> list[Period] | None:
    raw_n = (m.group(1) or m.group(3) or "").lower()
    n = _NUM_WORDS.get(raw_n) or chinese_number(raw_n)
    unit = _UNIT_WORDS.get(re.sub(r"\s+", " ", (m.group(2) or m.group(4) or "").lower()))
    if not n or unit is None or not 2 <= n <= MAX_SERIES:
        return None
    if unit == "FY":
        last = last_complete_fiscal_year(reference_date, fye)
    elif unit == "Q":
        last = shift_period(fiscal_quarter_of(reference_date, fye), -1)
    elif unit == "HY":
        last = shift_period(fiscal_half_of(reference_date, fye), -1)
    else:
        prev = reference_date.replace(day=1) - dt.timedelta(days=1)
        last = Period(PeriodType.M, f"{prev.year}-{prev.month:02d}")
    return [shift_period(last, -i) for i in range(n - 1, -1, -1)]


def _within(fy: Period, grain: str, fye: str) -> list[Period]:
    """The quarters, halves or months of a fiscal year (months: calendar months it spans)."""
    if fy.type is not PeriodType.FY or grain in ("FY", ""):  # "how many years …": years
        return [fy]
    year = fy.year
    if grain == "Q":
        return [Period(PeriodType.Q, f"{year}Q{i}") for i in range(1, 5)]
    if grain == "HY":
        return [Period(PeriodType.HY, f"{year}H{i}") for i in (1, 2)]
    start = fiscal_year_bounds(year, fye)[0]
    out = []
    for i in range(12):
        index = start.year * 12 + start.month - 1 + i
        out.append(Period(PeriodType.M, f"{index // 12}-{index % 12 + 1:02d}"))
    return out
