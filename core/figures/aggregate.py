"""Sums, averages and shares asked in a question, computed exactly from the fact rows.

"total EBITDA FY2021–FY2023", "organico medio 2022–2024", "combined revenue of Italy and Hong
Kong", "how much of group revenue is Hong Kong": every input is looked up exactly
(core.figures.cells), cited by number in the sentence that shows the formula, and the result
heads the answer's facts as a derived fact. A missing input makes the whole result
`not_found`, naming what is missing: a total of the rows that exist is never shown as the total
asked for. A metric that does not add up (core.figures.arithmetic) is averaged instead of
summed, and the answer says so; figures in different units are never added.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from core.catalog.lookup import join_list, say
from core.contracts.types import Assumption, FactStatus, Line, Period
from core.figures import arithmetic as ar
from core.figures.cells import (
    MISSING_INPUT,
    NOT_ADDITIVE,
    UNIT_MISMATCH,
    ZERO_BASE,
    ArithmeticFact,
    Cell,
    input_facts,
    lookup,
    span,
)
from core.figures.derived import running_name
from core.figures.disclosed import WITHHELD, withheld_input
from core.figures.period_coverage import clip_to_data, coarser_grain
from core.figures.render import unrecognized_line
from core.figures.step_context import ExecutionContext, asked_table
from core.figures.structured import TOTAL
from core.figures.table_parts import Built
from core.fiscal_calendar import last_complete_fiscal_year
from core.knowledge.currency_variants import currency_of_unit
from core.question.period_labels import period_label


def aggregate(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    """A sum or an average over the question's periods or over its named members."""
    fye = ctx.glossary.fiscal_year_end
    analysis = asked_table(ctx)
    g, lang = ctx.glossary, ctx.request.language
    metric = args["metric"]
    dim = analysis.dimension
    if dim == "period":
        entity = first_entity(out, ctx)
        channel = args.get("channel") or TOTAL
        periods, coverage = list(analysis.periods), None
        if analysis.asked:  # a range longer than a table ("FY1800–FY2024"): the data's part
            periods, coverage = clip_to_data(periods, analysis.asked, ctx, metric, entity,
                                             channel)
        elif analysis.measure == "sum":  # months asked, quarters stored ("year to date")
            periods, coverage = coarser_grain(periods, ctx, metric, entity, channel)
        if coverage is not None:
            out.segments.append(coverage)
        keys = [(entity, channel, p) for p in periods]
        labels = [period_label(p, lang, fye) for p in periods]
    else:
        period = one_period(out, args, ctx)
        if dim == "entity":
            channel = args.get("channel") or TOTAL
            members = list(ctx.intent.entities)
            keys = [(e, channel, period) for e in members]
        else:
            entity = first_entity(out, ctx)
            members = [c for c in ctx.intent.channels if c != TOTAL]
            keys = [(entity, c, period) for c in members]
        labels = [g.label(dim, m, lang) for m in members]
    cells = [lookup(ctx, metric, *key) for key in keys]
    if refuse_unrecognized(out, cells, ctx):
        return
    if dim == "period":
        subject = subject_of(g, metric, entity, channel, lang, cells)
    elif dim == "entity":
        subject = subject_of(g, metric, None, channel, lang)
    else:
        subject = subject_of(g, metric, entity, TOTAL, lang)
    measure = analysis.measure
    note = ""
    if measure == "sum" and not ar.adds_over(g, metric, dim):
        measure = "average"  # headcount over years, a margin: the average, said so
        kind = "rate_averaged" if ar.nature(g, metric) == ar.RATE else "stock_averaged"
        note = say(kind, lang, metric=g.label("metric", metric, lang))
    if dim == "period":
        key = f"{measure}_periods"
        fields: dict[str, Any] = {"first": labels[0], "last": labels[-1]}
        entity_field, period_field, channel_field = entity, span(periods), channel
    else:
        key = f"{measure}_members"
        fields = {"members": join_list(labels, lang), "period": period_label(period, lang, fye)}
        codes = "+".join(members)
        entity_field = codes if dim == "entity" else entity
        channel_field = codes if dim == "channel" else channel
        period_field = period
    what = _what(key, lang, subject, fields)
    formula: dict[str, Any] = {"op": measure, "over": dim, "n": str(len(cells))}
    if measure != analysis.measure:
        formula["asked"], formula["reason"] = analysis.measure, NOT_ADDITIVE
    common: dict[str, Any] = {"metric": metric, "entity": entity_field, "period": period_field,
                              "channel": channel_field, "formula": formula,
                              "inputs": input_facts(cells)}
    if name_missing(out, cells, labels, what, common, ctx):
        return
    unit = one_unit(out, cells, what, common, ctx)
    if unit is None:
        return
    values = [c.value for c in cells if c.value is not None]
    decimals = shown_decimals(g, metric, values)
    exact = ar.exact_sum(values) if measure == "sum" else ar.average(values)
    places = decimals if measure == "sum" else decimals + 1
    shown = ar.rounded(exact, places)
    if measure != "sum" and ar.decimals_of([ar.plain(shown)]) <= decimals:
        shown = ar.rounded(exact, decimals)  # 4,347.5 FTE, €121.0M: no trailing digit
    terms = [f"{label} {show(g, c.value, unit, lang, decimals)} {out.cite(*c.sources)}"
             for label, c in zip(labels, cells, strict=True) if c.value is not None]
    sentence = say(key, lang, subject=subject, value=g.show_value(shown, unit, lang),
                   terms=" + ".join(terms), n=len(cells), **fields)
    fact = ArithmeticFact(FactStatus.FOUND, value=exact if measure == "sum" else ar.plain(exact),
                          shown=shown, unit=unit, decimals=-int(shown.as_tuple().exponent),
                          **common)
    out.results[:0] = [fact, *fact.inputs]
    if note:
        out.segments.append(Line("notice", note))
    out.segments.append(Line("derived", sentence))


def share(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> None:
    """One member's share of its whole: an entity of its parent (the group), a channel of
    its entity's total."""
    g, lang = ctx.glossary, ctx.request.language
    metric = args["metric"]
    dim = asked_table(ctx).dimension
    period = one_period(out, args, ctx)
    if dim == "channel":
        entity = first_entity(out, ctx)
        member = next(c for c in ctx.intent.channels if c != TOTAL)
        part_key, whole_key = (entity, member, period), (entity, TOTAL, period)
        member_label = g.label("channel", member, lang)
        whole = subject_of(g, metric, entity, TOTAL, lang)
    else:
        channel = args.get("channel") or TOTAL
        member, parent = _member_and_whole(g, list(ctx.intent.entities))
        part_key, whole_key = (member, channel, period), (parent, channel, period)
        member_label = g.label("entity", member, lang) if member else ""
        whole = subject_of(g, metric, parent, channel, lang)
    if ar.nature(g, metric) == ar.RATE:
        text = say("share_of_rate", lang, metric=g.label("metric", metric, lang))
        out.results.append(ArithmeticFact(FactStatus.NOT_FOUND, metric=metric, period=period,
                                          formula={"op": "share"}, reason=NOT_ADDITIVE))
        out.segments.append(Line("message", text))
        return
    if not member:
        out.segments.append(Line("message", say("share_no_member", lang, whole=whole)))
        return
    cells = [lookup(ctx, metric, *part_key), lookup(ctx, metric, *whole_key)]
    if refuse_unrecognized(out, cells, ctx):
        return
    whole = subject_of(g, metric, whole_key[0], TOTAL if dim == "channel" else whole_key[1],
                       lang, cells[1:])
    plabel = period_label(period, lang, ctx.glossary.fiscal_year_end)
    what = say("share_what", lang, member=member_label, whole=whole, period=plabel)
    formula = {"op": "share", "part": f"{part_key[0]}/{part_key[1]}",
               "whole": f"{whole_key[0]}/{whole_key[1]}"}
    common: dict[str, Any] = {"metric": metric, "entity": part_key[0], "period": period,
                              "channel": part_key[1], "formula": formula,
                              "inputs": input_facts(cells)}
    labels = [member_label, whole]
    if name_missing(out, cells, labels, what, common, ctx):
        return
    unit = one_unit(out, cells, what, common, ctx)
    if unit is None:
        return
    part, total = (c.value for c in cells)
    assert part is not None and total is not None
    value = ar.share(part, total) if total > 0 else None
    if value is None:
        out.results[:0] = [ArithmeticFact(FactStatus.NOT_FOUND, reason=ZERO_BASE, **common)]
        out.segments.append(Line("not_found", say("zero_base", lang, what=what, base=whole)))
        return
    shown = ar.rounded(value, 1)
    decimals = shown_decimals(g, metric, [part, total])
    a, b = (show(g, c.value, unit, lang, decimals) for c in cells)
    sentence = say("share", lang, member=member_label, whole=whole, period=plabel,
                   value=g.show_value(shown, "PCT", lang), a=a, b=b,
                   na=cite_numbers(out, cells[0]), nb=cite_numbers(out, cells[1]))
    fact = ArithmeticFact(FactStatus.FOUND, value=value, shown=shown, unit="PCT", decimals=1,
                          **common)
    out.results[:0] = [fact, *fact.inputs]
    out.segments.append(Line("derived", sentence))


# --------------------------------------------------------------------------- shared helpers


def first_entity(out: Built, ctx: ExecutionContext) -> str:
    """The entity the question names, else the default one (stated as an assumption)."""
    if ctx.intent.entities:
        return str(ctx.intent.entities[0])
    code: str = ctx.glossary.default_entity
    out.assumptions.append(Assumption(
        "entity", ctx.glossary.label("entity", code, ctx.request.language), "default entity"))
    return code


def one_period(out: Built, args: dict[str, Any], ctx: ExecutionContext) -> Period:
    """The period the question names, else the last complete fiscal year (stated)."""
    fye = ctx.glossary.fiscal_year_end
    if ctx.intent.periods:
        return ctx.intent.periods[0]
    period = last_complete_fiscal_year(ctx.request.reference, fye)
    out.assumptions.append(Assumption("period", period_label(period, ctx.request.language, fye),
                                      "last complete fiscal year"))
    return period


def subject_of(g: Any, metric: str, entity: str | None, channel: str, lang: str,
               cells: list[Cell] | None = None) -> str:
    """"Orbis China revenue (online)" / "Ricavi Orbis Cina (online)" / "中国区营收（线上）";
    (`cells` is kept for the callers; a withheld total makes the result withheld, never
    renamed: core.figures.disclosed)."""
    m = g.label("metric", metric, lang)
    e = g.label("entity", entity, lang) if entity else ""
    c = g.label("channel", channel, lang) if channel and channel != TOTAL else ""
    if lang == "zh":
        return f"{e}{m}" + (f"（{c}）" if c else "")
    text = f"{m} {e}".strip() if lang == "it" else f"{e} {running_name(m, lang) if e else m}"
    return text.strip() + (f" ({c})" if c else "")


def shown_decimals(g: Any, metric: str, values: list[Decimal]) -> int:
    """Decimals an input is shown with: a derived metric's own, else the most any row has."""
    if metric in g.derived:
        return int(g.derived[metric].decimals)
    return ar.decimals_of(values)


def show(g: Any, value: Decimal | None, unit: str, lang: str, decimals: int) -> str:
    assert value is not None
    exact = ar.decimals_of([value]) <= decimals
    return str(g.show_value(value if exact else ar.rounded(value, decimals), unit, lang))


def cite_numbers(out: Built, cell: Cell) -> str:
    """The citation numbers of one input, without brackets ("1", "1][2")."""
    return out.cite(*cell.sources)[1:-1]


def _what(key: str, lang: str, subject: str, fields: dict[str, Any]) -> str:
    """The result's name without its value, for a sentence saying it cannot be computed."""
    sentence = say(key, lang, subject=subject, value="", terms="", n="", **fields)
    return sentence.split("：" if lang == "zh" else ":")[0].strip()


def _member_and_whole(g: Any, named: list[str]) -> tuple[str, str]:
    """(member, whole) among the named entities: the whole is a named ancestor of the member,
    else its parent, else the default entity."""
    member = next((e for e in named if not any(_ancestor(g, e, m) for m in named if m != e)
                   and e != g.default_entity), "")
    if not member:
        return "", g.default_entity
    for other in named:
        if other != member and _ancestor(g, other, member):
            return member, other
    parent = getattr(g.entities[member], "parent", None)
    return member, parent or g.default_entity


def _ancestor(g: Any, maybe: str, of: str) -> bool:
    seen = set()
    code: str | None = of
    while code and code not in seen:
        seen.add(code)
        code = getattr(g.entities.get(code), "parent", None)
        if code == maybe:
            return True
    return False


def refuse_unrecognized(out: Built, cells: list[Cell], ctx: ExecutionContext) -> bool:
    """A name this chat may not use (or does not exist): said as for any lookup."""
    bad = next((c for c in cells if c.unrecognized), None)
    if bad is None:
        return False
    out.results.append(bad.result)
    out.segments.append(Line("unrecognized", unrecognized_line(
        ctx.glossary, bad.result, ctx.request.language, cleared=ctx.request.cleared)))
    return True


def name_missing(out: Built, cells: list[Cell], labels: list[str], what: str,
                 common: dict[str, Any], ctx: ExecutionContext) -> bool:
    """Every input is needed: a missing one makes the result not_found, named."""
    gaps = [(label, c) for label, c in zip(labels, cells, strict=True) if not c.found]
    if not gaps:
        return False
    if any(withheld_input(c.result) is not None for _, c in gaps):
        # a total withheld from this chat (core.figures.disclosed): so is what rests on it
        out.results[:0] = [ArithmeticFact(FactStatus.NOT_FOUND, reason=WITHHELD, **common)]
        out.segments.append(Line("not_found", say("derived_withheld", ctx.request.language,
                                                  subject=what)))
        return True
    fact = ArithmeticFact(FactStatus.NOT_FOUND, reason=MISSING_INPUT,
                          missing=tuple(label for label, _ in gaps),
                          missing_rows=tuple(c.result for _, c in gaps), **common)
    out.results[:0] = [fact, *fact.inputs]
    out.segments.append(Line("not_found", say(
        "missing", ctx.request.language, what=what,
        missing=join_list([label for label, _ in gaps], ctx.request.language))))
    return True


def one_unit(out: Built, cells: list[Cell], what: str, common: dict[str, Any],
              ctx: ExecutionContext) -> str | None:
    """The inputs' one unit, or None (said) when they are in several: never added."""
    units = list(dict.fromkeys(c.unit for c in cells))
    if len(units) == 1:
        return units[0]
    out.results[:0] = [ArithmeticFact(FactStatus.NOT_FOUND, reason=UNIT_MISMATCH, **common)]
    g, lang = ctx.glossary, ctx.request.language
    currencies = list(dict.fromkeys(cur for u in units if (cur := currency_of_unit(g, u))))
    if len(currencies) < 2:
        out.segments.append(Line("not_found", say("unit_mismatch", lang, what=what,
                                                  units=", ".join(units))))
        return None
    # two currencies (a unit reporting in its own): split, each figure in its own, never
    # converted, added, compared or divided (core.knowledge.currency_variants)
    out.results += [c.result for c in cells if c.found]
    out.segments.append(Line("not_found", say("currency_mismatch", lang, what=what,
                                              currencies=", ".join(currencies))))
    for c in cells:
        if c.found and c.result.fact is not None:
            f = c.result.fact
            subject = subject_of(g, f.metric, f.entity, f.channel, lang)
            out.segments.append(Line("fact", say(
                "currency_split_item", lang, subject=subject,
                period=period_label(f.period, lang, ctx.glossary.fiscal_year_end),
                value=g.show_value(f.value, f.unit, lang), cite=out.cite(*c.sources))))
    return None


__all__ = ["aggregate", "cite_numbers", "first_entity", "name_missing", "one_period",
           "one_unit", "refuse_unrecognized", "share", "show", "shown_decimals", "subject_of"]
