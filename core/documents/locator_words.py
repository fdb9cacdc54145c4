"""A locator as words in the reader's language: `sheet=PnL;row=GROUP_EBITDA;col=FY2025` ->
"sheet PnL, row GROUP_EBITDA, column FY2025" / "foglio PnL, riga GROUP_EBITDA, colonna FY2025"
/ "工作表PnL，行 GROUP_EBITDA，列 FY2025"; `page=11,table=2` -> "p. 11, table 2".

Every form docs/formats.md allows reads so: parts separated by "," or ";", each `key=value`,
`key:value` or `key value` (`sheet PnL`), the keys page (p, pg), table, row, col (column),
cell, slide, para (paragraph), section and sheet, and a spreadsheet reference `PnL!B7` (sheet
and cell). A numbered row reads "第3行", a named one "行 GROUP_EBITDA". An unknown key reads
"key value"; a part with no key stays as written.
"""

from __future__ import annotations

import re

from core.catalog.lookup import say

_ALIASES = {"p": "page", "pg": "page", "page": "page", "table": "table", "row": "row",
            "col": "col", "column": "col", "cell": "cell", "slide": "slide", "para": "para",
            "paragraph": "para", "section": "section", "sheet": "sheet"}
_KEY = "|".join(sorted(_ALIASES, key=len, reverse=True))
# a part boundary: ";" always, "," only before another part (a heading keeps its own commas)
_SPLIT = re.compile(rf";\s*|,\s*(?=(?:[A-Za-z_]+\s*[=:]|(?:{_KEY})\s+\S))", re.IGNORECASE)
_PART = re.compile(rf"^\s*(?:([A-Za-z_]+)\s*[=:]\s*|({_KEY})\s+)(.*?)\s*$", re.IGNORECASE)
_SHEET_REF = re.compile(r"^\s*'?([^!']+)'?!\$?([A-Z]{1,3})\$?(\d+)\s*$")
_NAMED = frozenset({"row", "col"})  # a named row or column reads "行 X", not "第X行"


def parts(locator: str) -> list[tuple[str, str]]:
    """(key, value) for each part, keys canonical ("column" -> "col"); key "" when none."""
    out: list[tuple[str, str]] = []
    for item in _SPLIT.split(locator):
        if not item.strip():
            continue
        ref = _SHEET_REF.match(item)
        if ref:
            out += [("sheet", ref.group(1)), ("cell", ref.group(2) + ref.group(3))]
            continue
        match = _PART.match(item)
        if match is None or not match.group(3):
            out.append(("", item.strip()))
            continue
        key = (match.group(1) or match.group(2)).lower()
        out.append((_ALIASES.get(key, key), match.group(3)))
    return out


def locator_words(locator: str, language: str) -> list[str]:
    """Each part of `locator` in words (joined by the caller with the language's comma)."""
    words = []
    for key, value in parts(locator):
        if key == "":
            words.append(value)
        elif key in _NAMED and not value.isdigit():
            words.append(say(f"locator_{key}_named", language, v=value))
        elif key in _ALIASES.values():
            words.append(say(f"locator_{key}", language, v=value))
        else:
            words.append(f"{key} {value}")
    return words
