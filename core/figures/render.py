"""Turn structured results into sentences in the reader's language.

Every number is followed by its source; a `not_found` line names the period asked for and
contains no number. Shared by every platform: adapters only add markup.
"""

from __future__ import annotations

from core.catalog.formats import percent
from core.catalog.lookup import join_list, say
from core.contracts.types import Assumption, FactResult, FactStatus, Line, Period
from core.figures.derived import DerivedFact, derived_sentence, running_name
from core.figures.disclosed import MaskedTotal, masked_note, protected_input
from core.figures.structured import Difference
from core.knowledge.glossary import Glossary
from core.question.period_labels import period_label, year_end_day

TOTAL = "TOTAL"


def subject(glossary: Glossary, r: FactResult, language: str) -> str:
    """ "Orbis China revenue (online), FY2024" / "中国区2024财年营收（线上）"."""
    metric = glossary.label("metric", r.metric or "", language)
    entity = glossary.label("entity", r.entity or "", language)
    period = period_label(r.period, language) if isinstance(r.period, Period) else ""
    channel = ""
    if r.channel and r.channel != TOTAL:
        channel = glossary.label("channel", r.channel, language)
    # a protected total, or a derived figure over one: the name says it excludes units
    masked = r if isinstance(r, MaskedTotal) else protected_input(r)
    if masked is not None and masked.entity == r.entity:  # the sum of the public members
        if masked.masked_entity:
            entity = say("masked_entity", language, name=entity)
        else:
            channel = say("masked_channel", language)
    if language == "zh":
        return f"{entity}{period}{metric}" + (f"（{channel}）" if channel else "")
    metric = metric if language == "it" else running_name(metric, language)
    if language == "it":
        text = f"{metric} {entity}" + (f" ({channel})" if channel else "")
    else:
        text = f"{entity} {metric}" + (f" ({channel})" if channel else "")
    return f"{text}, {period}"


def masked_line(glossary: Glossary, r: MaskedTotal, language: str) -> str:
    """"Orbis Group excluding undisclosed units revenue, FY2024: €1,031.4M (sum of Orbis China,
    Orbis Italia and Orbis Hong Kong; source: ...)", or why it is withheld."""
    if r.status is not FactStatus.FOUND or r.fact is None:
        missing = [_member_label(glossary, e, c, language) for e, c in r.missing]
        plain = FactResult(r.status, metric=r.metric, entity=r.entity, period=r.period,
                           channel=r.channel)
        return say("masked_withheld", language, subject=subject(glossary, plain, language),
                   missing=join_list(missing, language))
    members = [_member_label(glossary, f.entity, f.channel, language) for f in r.members]
    value = say("found", language, subject=subject(glossary, r, language),
                value=glossary.show_value(r.fact.value, r.fact.unit, language)).rstrip()
    titles = list(dict.fromkeys(glossary.source_title(s, language) for s in r.sources))
    sep = "；" if language == "zh" else "; "
    inner = (say("masked_sum", language, members=join_list(members, language)) + sep
             + say("source", language, title=sep.join(titles)))
    return f"{value}（{inner}）" if language == "zh" else f"{value} ({inner})"


def _member_label(glossary: Glossary, entity: str, channel: str, language: str) -> str:
    name = glossary.label("entity", entity, language)
    if channel and channel != TOTAL:
        name += f" ({glossary.label('channel', channel, language)})"
    return name


def fact_line(glossary: Glossary, r: FactResult, language: str) -> str:
    if isinstance(r, MaskedTotal):
        return masked_line(glossary, r, language)
    if r.status is FactStatus.FOUND and r.fact is not None:
        f = r.fact
        value = say(
            "found",
            language,
            subject=subject(glossary, r, language),
            value=glossary.show_value(f.value, f.unit, language),
        ).rstrip()
        src = say("source", language, title=glossary.source_title(f.source, language))
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
        later=period_label(d.later.period, language),
        earlier=period_label(d.earlier.period, language),
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
    language: str,
    *,
    cleared: bool,
) -> list[Line]:
    """One line per result (bulleted when there are several), then the difference; a line
    said twice (two unknown names alike) is said once."""
    lines: list[Line] = []
    for r in results:
        if isinstance(r, DerivedFact):  # computed in code, both inputs cited (core.figures.derived)
            kind = "derived" if r.status is FactStatus.FOUND else "not_found"
            sentence = derived_sentence(glossary, r, language, subject(glossary, r, language))
            lines.append(Line(kind, sentence))
        elif r.status is FactStatus.UNRECOGNIZED:
            lines.append(Line("unrecognized", unrecognized_line(glossary, r, language,
                                                                cleared=cleared)))
        else:
            kind = "fact" if r.status is FactStatus.FOUND else "not_found"
            lines.append(Line(kind, fact_line(glossary, r, language)))
    if len(lines) > 1:
        lines = [Line(line.kind, f"• {line.text}") for line in lines]
    if difference is not None:
        lines.append(Line("difference", difference_line(glossary, difference, language)))
    note = masked_note(glossary, results, language)
    if note is not None:
        lines.append(note)
    return list(dict.fromkeys(lines))


def scope_summary(glossary: Glossary, language: str, *, cleared: bool) -> dict[str, str]:
    terms = [*glossary.metrics.values(), *(d.term for d in glossary.derived.values())]
    metrics = [t.label_for(language) for t in terms]
    entities = [t.label_for(language) for t in glossary.visible_entities(cleared)]
    return {"metrics": join_list(metrics, language), "entities": join_list(entities, language)}
