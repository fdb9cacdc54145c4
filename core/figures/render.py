"""Turn structured results into sentences in the reader's language.

Every number is followed by its source; a `not_found` line names the period asked for and
contains no number. Shared by every platform: adapters only add markup.
"""

from __future__ import annotations

from core.catalog.formats import percent
from core.catalog.lookup import join_list, say
from core.contracts.context import RequestContext
from core.contracts.types import Assumption, FactResult, FactStatus, Line, Period
from core.documents.source_titles import source_title
from core.figures.derived import DerivedFact, derived_sentence, running_name
from core.figures.disclosed import WithheldTotal, together_label
from core.figures.structured import Difference
from core.knowledge.glossary import Glossary
from core.question.period_labels import period_label, year_end_day

TOTAL = "TOTAL"


def subject(glossary: Glossary, r: FactResult, language: str) -> str:
    """ "Orbis China revenue (online), FY2024" / "中国区2024财年营收（线上）"."""
    fye = glossary.fiscal_year_end
    metric = glossary.label("metric", r.metric or "", language)
    entity = glossary.label("entity", r.entity or "", language)
    period = period_label(r.period, language, fye) if isinstance(r.period, Period) else ""
    channel = ""
    if r.channel and r.channel != TOTAL:
        channel = glossary.label("channel", r.channel, language)
    if language == "zh":
        return f"{entity}{period}{metric}" + (f"（{channel}）" if channel else "")
    metric = metric if language == "it" else running_name(metric, language)
    if language == "it":
        text = f"{metric} {entity}" + (f" ({channel})" if channel else "")
    else:
        text = f"{entity} {metric}" + (f" ({channel})" if channel else "")
    return f"{text}, {period}"


def withheld_lines(glossary: Glossary, r: WithheldTotal, language: str) -> list[str]:
    """"Orbis Group revenue, FY2024: not shown in this chat (…)", then, when the metric adds up
    over members, what the visible units add up to, named by them: "Orbis China, Orbis
    Italia and Orbis Hong Kong together: €1,031.4M (source: …)"."""
    key = "withheld_total" if r.masked_entity else "withheld_total_channel"
    plain = FactResult(r.status, metric=r.metric, entity=r.entity, period=r.period,
                       channel=r.channel)
    lines = [say(key, language, subject=subject(glossary, plain, language))]
    if r.together is not None:
        titles = list(dict.fromkeys(source_title(s, language, glossary.titles) for s in r.sources))
        sep = "；" if language == "zh" else "; "
        value = say("found", language, subject=together_label(glossary, r, language),
                    value=glossary.show_value(r.together, r.unit, language)).rstrip()
        src = say("source", language, title=sep.join(titles))
        lines.append(f"{value}（{src}）" if language == "zh" else f"{value} ({src})")
    return lines


def fact_line(glossary: Glossary, r: FactResult, language: str) -> str:
    if isinstance(r, WithheldTotal):
        return "\n".join(withheld_lines(glossary, r, language))
    if r.status is FactStatus.FOUND and r.fact is not None:
        f = r.fact
        value = say(
            "found",
            language,
            subject=subject(glossary, r, language),
            value=glossary.show_value(f.value, f.unit, language),
        ).rstrip()
        src = say("source", language, title=source_title(f.source, language, glossary.titles))
        return f"{value} ({src})" if language != "zh" else f"{value}（{src}）"
    if r.status is FactStatus.NOT_FOUND:
        return say("not_found", language, subject=subject(glossary, r, language))
    return unrecognized_line(glossary, r, language, cleared=False)


def unrecognized_line(glossary: Glossary, r: FactResult, language: str, *, cleared: bool) -> str:
    if r.param == "entity":
        names = [t.label_for(language) for t in glossary.visible_entities(cleared)]
        return say("unknown_entity", language, raw=r.raw, entities=join_list(names, language))
    if r.param == "period":
        text = say("unknown_period", language, raw=r.raw)
        if glossary.fiscal_year_end != "12-31":  # "the year ended 31 March" on a June calendar
            day = year_end_day(glossary.fiscal_year_end, language)
            text += say("fiscal_year_ends", language, day=day)
        return text
    return say("unknown_param", language, param=say(f"param_{r.param}", language), raw=r.raw)


def difference_line(glossary: Glossary, d: Difference, language: str) -> str:
    assert d.earlier.period is not None and d.later.period is not None
    unit = d.later.fact.unit if d.later.fact else ""
    sign = "+" if d.delta > 0 else ""  # a negative delta carries its own "-"
    pct = "n/a" if d.pct is None else percent(d.pct, language)
    return say(
        "difference",
        language,
        later=period_label(d.later.period, language, glossary.fiscal_year_end),
        earlier=period_label(d.earlier.period, language, glossary.fiscal_year_end),
        delta=sign + glossary.show_value(d.delta, unit, language),
        pct=pct,
    )


def assumptions_line(assumptions: list[Assumption], language: str) -> str:
    items = []
    for a in assumptions:
        key = "assumed_entity" if a.slot == "entity" else "assumed_period"
        items.append(a.note or say(key, language, value=a.value))
    return say("assumed", language, items="; ".join(items))


def structured_lines(
    glossary: Glossary,
    results: list[FactResult],
    difference: Difference | None,
    request: RequestContext,
) -> list[Line]:
    """One line per result (bulleted when there are several), then the difference, in the
    request's language and for what its chat may see; a line said twice (two unknown names
    alike) is said once."""
    language, cleared = request.language, request.cleared
    lines: list[Line] = []
    for r in results:
        if isinstance(r, DerivedFact) and r.metric not in glossary.derived:
            # a stored metric computed in code: a year summed from its parts (loaded only then)
            from core.figures.period_parts import parts_sentence

            lines.append(Line("derived", parts_sentence(glossary, r, language,
                                                        subject(glossary, r, language))))
        elif isinstance(r, DerivedFact):  # computed in code, inputs cited (core.figures.derived)
            kind = "derived" if r.status is FactStatus.FOUND else "not_found"
            sentence = derived_sentence(glossary, r, language, subject(glossary, r, language))
            lines.append(Line(kind, sentence))
        elif r.status is FactStatus.UNRECOGNIZED:
            lines.append(Line("unrecognized", unrecognized_line(glossary, r, language,
                                                                cleared=cleared)))
        elif isinstance(r, WithheldTotal):  # withheld, then its visible units' own line
            held = withheld_lines(glossary, r, language)
            lines.append(Line("not_found", held[0]))
            lines += [Line("fact", text) for text in held[1:]]
        else:
            kind = "fact" if r.status is FactStatus.FOUND else "not_found"
            lines.append(Line(kind, fact_line(glossary, r, language)))
    if len(lines) > 1:
        lines = [Line(line.kind, f"• {line.text}") for line in lines]
    if difference is not None:
        lines.append(Line("difference", difference_line(glossary, difference, language)))
    return list(dict.fromkeys(lines))


def scope_summary(glossary: Glossary, language: str, *, cleared: bool) -> dict[str, str]:
    terms = [*glossary.metrics.values(), *(d.term for d in glossary.derived.values())]
    metrics = [t.label_for(language) for t in terms]
    entities = [t.label_for(language) for t in glossary.visible_entities(cleared)]
    return {"metrics": join_list(metrics, language), "entities": join_list(entities, language)}
