"""Reading a question: intent, periods, arguments, the security gate, follow-ups.

The modules are imported by name (`from core.question.arguments import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "analysis_cues",
    "argument_scan",
    "arguments",
    "conversation",
    "count_parse",
    "currency_asked",
    "intent",
    "intent_words",
    "language_words",
    "no_figure",
    "period_atoms",
    "period_grammar",
    "period_labels",
    "periods",
    "range_parse",
    "read_as",
    "scale_asked",
    "security",
    "series_parse",
    "subject",
    "table_shape",
    "time_arguments",
    "tool_intents",
]
