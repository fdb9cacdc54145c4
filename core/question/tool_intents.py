"""Requests answered by a tool rather than a channel: the clock, and the sources of the
previous answer (which depends on the conversation, so its plan is never cached)."""

from __future__ import annotations

import re

_CLOCK = re.compile(
    r"\bwhat\s+time\s+is\s+it\b|\bwhat'?s\s+the\s+(?:time|date)\b|\btell\s+me\s+the\s+time\b"
    r"|\bcurrent\s+time\b|\bwhat\s+day\s+is\s+(?:it|today)\b|\btoday'?s\s+date\b|\btime\s+now\b"
    r"|\bche\s+or[ae]\s+(?:è|e'|sono)\b|\bdimmi\s+l'?\s?ora\b|\bche\s+giorno\s+è\b|\bl'ora\s+esatta\b"
    r"|现在几点|几点了|现在.{0,2}时间|今天几号|今天是几号|今天星期几|今天是星期几",
    re.IGNORECASE,
)
_PREVIOUS_SOURCES = re.compile(
    r"\bsources?\s+(?:of|for)\s+(?:my|the|your)\s+(?:previous|last)\s+answer\b"
    r"|\bwhere\s+did\s+(?:that|this|the\s+last\s+answer)\s+come\s+from\b"
    r"|\bfonti\s+(?:della|dell'ultima)\s+(?:risposta\s+precedente|risposta)\b"
    r"|\bda\s+dove\s+viene\s+(?:questa|la)\s+risposta\b"
    r"|上一个回答的来源|上个回答的来源|刚才的回答.{0,3}来源|上一条回答的来源",
    re.IGNORECASE,
)

CLOCK = "clock"
PREVIOUS_SOURCES = "previous_sources"


def detect_tool(text: str) -> str | None:
    if _PREVIOUS_SOURCES.search(text):
        return PREVIOUS_SOURCES
    if _CLOCK.search(text):
        return CLOCK
    return None
