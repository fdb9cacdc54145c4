"""The words that ask for a table rather than one figure (en/it/zh), compiled once: range and
"last N" cues, grains ("quarter by quarter"), trend, year to date, ranking, comparison,
arithmetic (sum, average, growth, share) and count cues, with `HINTS`, the cheap pre-check that
every cue contains. Read by core.question.range_parse (what the question asks for) and
core.question.series_parse (which periods); core.planning.bounds counts ranges with them.
"""

from __future__ import annotations

import re

from core.question.period_grammar import YTD_CJK

__all__ = [
    "AND_GAP",
    "AVERAGE",
    "BY_CHANNEL",
    "BY_ENTITY",
    "CHANNEL_WORD",
    "COMPARATIVE",
    "COMPARATIVE_LOW",
    "COMPARE",
    "EITHER",
    "FASTER",
    "GRAIN",
    "GRAIN_WORDS",
    "GREW_MORE",
    "GROWTH",
    "GROWTH_RANK",
    "HINTS",
    "LAST_N",
    "LOW",
    "LTM",
    "MEMBER_WHICH",
    "NUM_WORDS",
    "PERIOD_QUESTION",
    "RANGE_BEFORE",
    "RANGE_GAP",
    "SEQUENTIAL",
    "SHARE",
    "SLOWER",
    "SPLIT_YEARS",
    "SUM",
    "TREND",
    "UNIT_WORDS",
    "VALUE_RANK",
    "YTD",
    "rx",
]


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


NUM_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "twelve": 12, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6,
    "sette": 7, "otto": 8, "nove": 9, "dieci": 10, "dodici": 12,
}
UNIT_WORDS = {
    "year": "FY", "years": "FY", "fiscal years": "FY", "anni": "FY", "esercizi": "FY",
    "年": "FY", "财年": "FY", "quarters": "Q", "trimestri": "Q", "季度": "Q", "个季度": "Q",
    "halves": "HY", "half-years": "HY", "semestri": "HY", "半年": "HY", "months": "M",
    "mesi": "M", "个月": "M", "月": "M",
}
LAST_N = rx(
    r"(?<!\w)(?:last|past|previous|recent|the\s+last|ultim[ie]|scors[ie]|passat[ie])\s+"
    r"(\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|twelve|due|tre|quattro|cinque|sei"
    r"|sette|otto|nove|dieci|dodici)\s+(fiscal\s+years|years|quarters|half-years|halves|months"
    r"|anni|esercizi|trimestri|semestri|mesi)(?!\w)"
    r"|(?:近|最近|过去)\s*([0-9一二两三四五六七八九十]{1,3})\s*(财年|年|个季度|季度|半年|个月)"
)
GRAIN = [
    ("Q", rx(r"季均|quarter[\s-]+by[\s-]+quarter|(?<!\w)quarterly(?!\w)"
              r"|(?<!\w)(?:by|per|each|every)\s+quarter(?!\w)|trimestre\s+per\s+trimestre|(?<!\w)trimestral[ei](?!\w)"
              r"|(?<!\w)(?:per|ogni)\s+trimestre(?!\w)|每季度|各季度|分季度|按季度|逐季|季度平均")),
    ("M", rx(r"月均|month[\s-]+by[\s-]+month|(?<!\w)monthly(?!\w)|(?<!\w)(?:by|per|each|every)"
              r"\s+month(?!\w)|mese\s+per\s+mese|(?<!\w)mensil[ei](?!\w)|(?<!\w)(?:per|ogni)"
              r"\s+mese(?!\w)|每月|各月|按月|逐月|月度")),
    ("HY", rx(r"half[\s-]+by[\s-]+half|(?<!\w)semi-?annual(?:ly)?(?!\w)"
               r"|(?<!\w)(?:mean|average|avg)\s+half[\s-]+year(?:ly)?(?!\w)|(?<!\w)(?:by|per)"
               r"\s+half(?!\w)|(?<!\w)semestral[ei](?!\w)|(?<!\w)per\s+semestre(?!\w)"
               r"|每半年|按半年|半年度")),
]
# "year to date" and "the last twelve months": a span of months that, for a flow, is one sum
# (core.figures.aggregate); "last 12 months" with a grain or a trend word stays a series
YTD = rx(
    r"(?<!\w)(?:(?:this|the|current)\s+(?:fiscal\s+)?)?year[\s-]+to[\s-]+date(?!\w)"
    r"|(?<!\w)f?ytd(?!\w)|(?<!\w)(?:da|dall['’])\s?inizio\s+(?:d(?:ell['’]\s?|el\s+)?)?"
    r"(?:anno|esercizio)(?!\w)|" + YTD_CJK
)
LTM = rx(
    r"(?<!\w)(?:the\s+)?(?:last|past|trailing|previous)\s+(?:twelve|12)\s+months(?!\w)"
    r"|(?<!\w)(?:ltm|ttm)(?!\w)|(?<!\w)(?:(?:gli|negli)\s+)?ultimi\s+(?:dodici|12)\s+mesi(?!\w)"
    r"|(?:过去|最近|近)\s*(?:十二|12)\s*个月"
)
TREND = rx(
    r"(?<!\w)(?:trends?|over\s+time|evolution|history|historical|andamento|tendenza"
    r"|evoluzione|storico|nel\s+tempo)(?!\w)|变化趋势|趋势|走势|历年"
)
RANGE_BEFORE = rx(
    r"(?:(?<!\w)(?:from|between|dal|dall['’]|da|tra|fra)(?:\s+(?:il|the|fy|gli|i|the\s+years"
    r"|(?:gli\s+)?(?:esercizi|anni)|(?:the\s+)?fiscal\s+years))?|从)\s*$"
)
RANGE_GAP = rx(r"\s*(?:-|–|—|~|～|to|till|until|through|thru|al|all['’]|a|fino\s+al|至|到)\s*")
AND_GAP = rx(r"\s*(?:and|e|和|与)(?:\s+(?:il|the))?\s*")
SPLIT_YEARS = re.compile(r"((?:19|20)\d{2})\s*[-–]\s*(\d{2})")
LOW = rx(
    r"(?<!\w)(?:lowest|smallest|least|fewest|weakest|worst|slowest|bottom|più\s+bass[oaie]|minore|minori"
    r"|peggiore|peggiori|più\s+lent[oaie]|meno)(?!\w)|最低|最小|最少|最慢|最差"
)
GROWTH_RANK = rx(
    r"(?<!\w)(?:grew|grown|grow|growing|growth|increased?)(?!\w).{0,20}?(?<!\w)(?:fastest"
    r"|most|quickest|least|slowest|the\s+most|the\s+least)(?!\w)"
    r"|(?<!\w)(?:fastest|slowest)[\s-]+(?:growing|growth)(?!\w)"
    r"|(?<!\w)(?:cresciut[oaie]|cresce|crescere)(?!\w).{0,12}?(?<!\w)(?:di\s+più|di\s+meno"
    r"|maggiormente)(?!\w)|crescita\s+(?:maggiore|più\s+(?:alta|forte|rapida)|minore)"
    r"|增长最快|增速最快|增长最多|涨幅最大|增长最慢|增速最慢"
)
VALUE_RANK = rx(
    r"(?<!\w)(?:highest|largest|biggest|top|best|lowest|smallest|worst|bottom|rank|ranking"
    r"|ranked|classifica|migliore|migliori|peggiore|peggiori|maggiore|minore"
    r"|fewest|least|most(?!\s+recent)|greatest|weakest|strongest"
    r"|più\s+(?:alt[oaie]|elevat[oaie]|bass[oaie]|grande|piccol[oaie]))(?!\w)"
    r"|(?<!\w)(?:chi|quale|quali|che|in\s+che)(?!\w).{0,40}?(?<!\w)(?:più|meno|di\s+più"
    r"|di\s+meno)(?!\w)"
    r"|最高|最大|最多|最低|最小|最少|排名|排行"
)
COMPARE = rx(
    r"(?<!\w)(?:vs\.?|versus|compared?\s+(?:to|with)|compare|against|rispetto\s+a|confronta"
    r"|confronto|contro)(?!\w)|对比|比较|相比|相较"
)
CHANNEL_WORD = rx(r"(?<!\w)(?:channels?|canal[ei])(?!\w)|渠道")
BY_ENTITY = rx(
    r"(?<!\w)(?:by|per|across|for\s+each|each)\s+(?:business\s+units?|entit(?:y|ies)|units?"
    r"|subsidiar(?:y|ies)|regions?|countr(?:y|ies)|compan(?:y|ies)|markets?|segments?)(?!\w)"
    r"|(?<!\w)per\s+(?:entità|società|unità|paese|paesi|regione|regioni|mercato|mercati"
    r"|controllat[ae])(?!\w)"
    r"|各地区|各区域|分地区|按地区|各子公司|按子公司|各部门|按部门|各主体|按主体|各市场|按市场"
    r"|各分部|按分部|各区"
)
BY_CHANNEL = rx(
    r"(?<!\w)(?:by|per|across|for\s+each|each)\s+(?:sales\s+)?channels?(?!\w)"
    r"|(?<!\w)per\s+canal[ei](?!\w)|各渠道|分渠道|按渠道"
)

# arithmetic (core.figures.aggregate, core.figures.change): sums, averages, growth, shares.
# The total channel's own names ("total", "totale", "合计", "总计") are blanked as a channel
# before these run: naming that channel is a sum cue too (detect_analysis)
SUM = rx(
    r"(?<!\w)(?:combined|together|altogether|in\s+total|sum(?:med)?|cumulative|cumulated"
    r"|aggregate[d]?|added\s+up|insieme|in\s+tutto|somma(?:ti|te|to)?|sommando"
    r"|cumulat[oiae]|complessivamente)(?!\w)|加起来|总和|一共|共计|合共|累计|加总|总共"
)
AVERAGE = rx(
    r"(?<!\w)(?:average|avg|mean|medi[oaie]?|mediamente|in\s+media)(?!\w)|平均|均值|月均|季均"
    r"|年均"
)
GROWTH = rx(
    r"(?<!\w)(?:growth|grow|grew|grown|growing|yoy|y/y|year[\s-]+(?:over|on)[\s-]+year"
    r"|qoq|q/q|quarter[\s-]+(?:over|on)[\s-]+quarter|increase[ds]?|change[ds]?|decline[ds]?"
    r"|crescita|cresciut[oaie]|crescere|cresce|variazione|aumento|incremento|calo"
    r"|diminuzione)(?!\w)|同比|环比|增长|增速|增幅|变化|变动|下降|下滑"
    r"|(?<!\w)(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+(?:the\s+)?(?:previous|prior"
    r"|last\s+year|a\s+year\s+(?:earlier|before))(?!\w)"
    r"|(?<!\w)rispetto\s+(?:al|all['’]|a)\s*(?:precedente|anno\s+(?:precedente|prima))(?!\w)"
    r"|比上期|较上期|较上年|比上年"
)
SEQUENTIAL = rx(
    r"(?<!\w)(?:qoq|q/q|quarter[\s-]+(?:over|on)[\s-]+quarter|sequential(?:ly)?"
    r"|(?:previous|prior|last|preceding)\s+(?:quarter|half|month)"
    r"|congiuntural[ei]|(?:trimestre|semestre|mese)\s+precedente)(?!\w)"
    r"|(?<!\w)(?:vs\.?|versus|compared\s+(?:to|with)|against)\s+(?:the\s+)?(?:previous|prior)"
    r"(?!\s+(?:fiscal\s+)?year)(?!\w)|(?<!\w)rispetto\s+al\s+precedente(?!\w)|比上期|较上期"
    r"|环比|上季度|上一季度|上个季度|上半期|上月|上个月"
)
FASTER = rx(
    r"(?<!\w)(?:faster|slower|quicker|more|less)\s+(?:than|of)(?!\w)"
    r"|(?<!\w)(?:faster|slower|quicker)(?!\w)"
    r"|(?<!\w)più\s+(?:velocemente|rapidamente|in\s+fretta)?\s*(?:di|del|della|dell['’])"
    r"|(?<!\w)meno\s+(?:di|del|della|dell['’])(?!\w)"
    r"|比.{0,12}?(?:快|慢|多|高|低)|更快|更慢"
)
GREW_MORE = rx(r"(?<!\w)(?:grew|grown|grow|growing|increased?)\s+(?:more|less)(?!\w)")
EITHER = rx(r"(?<!\w)(?:or|o|oppure|either)(?!\w)|还是|或者|或")  # "A or B": the two named
SLOWER = rx(r"(?<!\w)(?:slower|less)(?!\w)|(?<!\w)meno(?!\w)|慢")
SHARE = rx(
    r"(?<!\w)(?:share|portion|proportion|percentage|fraction|part|how\s+much\s+of"
    r"|contribut(?:e|es|ed|ion)|quota|percentuale|peso|incidenza|parte)(?!\w)"
    r"|%\s*(?:of|di)(?!\w)|占|比例|份额|比重"
)
# a question about the periods themselves: "in which year", "which quarter", "哪一年"
PERIOD_QUESTION = rx(
    r"(?<!\w)(?:which|what)\s+(?:fiscal\s+)?(year|quarter|half|month)(?!\w)"
    r"|(?<!\w)(?:che|quale|qual|quali)\s+(anno|esercizio|trimestre|semestre|mese)(?!\w)"
    r"|哪(?:一|个|些)?\s*(财年|年度|年|季度|个季度|半年|个月|月)"
)
# "which year had the bigger operating cash flow?": a comparative ranks the periods too
COMPARATIVE = rx(
    r"(?<!\w)(?:bigger|higher|larger|greater|better|more|lower|smaller|fewer|less|worse"
    r"|maggiore|minore|migliore|peggiore|più|piu|meno)(?!\w)"
    r"|更高|更大|更多|更低|更小|更少|较高|较低|较大|较小"
)
COMPARATIVE_LOW = rx(
    r"(?<!\w)(?:lower|smaller|fewer|less|worse|minore|peggiore|meno)(?!\w)|più\s+(?:bass|piccol)"
    r"|更低|更小|更少|较低|较小"
)
# "which unit had the higher margin?", "quale regione ha più dipendenti?", "哪个区域营收更高": a
# comparative after a question about members asks for the first of a ranking
MEMBER_WHICH = rx(
    r"(?<!\w)(?:which|what)\s+(?!(?:is|was|are|were|has|had|did|does|do|one|of|fiscal|year"
    r"|years|quarter|quarters|half|month|months)(?!\w))[^\W\d_]+"
    r"|(?<!\w)(?:quale|quali)\s+(?!(?:è|e|era|sono|di|anno|esercizio|trimestre|semestre"
    r"|mese)(?!\w))[^\W\d_]+"
    r"|哪(?:一个|个|家|些)(?![年季月半财])"
)
GRAIN_WORDS = {
    "year": "FY", "anno": "FY", "esercizio": "FY", "财年": "FY", "年度": "FY", "年": "FY",
    "quarter": "Q", "trimestre": "Q", "季度": "Q", "个季度": "Q", "half": "HY",
    "semestre": "HY", "半年": "HY", "month": "M", "mese": "M", "个月": "M", "月": "M",
}


# Every cue above contains one of these: a question with none of them (and fewer than two
# periods) is a plain lookup, decided with one scan instead of a dozen.
HINTS = (
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
