"""Every sentence the bot says, in English, Italian and Chinese, with the one lookup
(`core.catalog.lookup.say`) and locale-aware number and date formats from a CLDR snapshot.
Why a typed module rather than gettext catalogs: docs/catalog.md.

The modules are imported by name; none is imported here."""

__all__ = [
    "admin",
    "answers",
    "arithmetic",
    "chat",
    "cldr",
    "derived",
    "disclosure",
    "documents",
    "feedback",
    "formats",
    "lookup",
    "periods",
    "presentation",
    "questions",
    "sentence",
    "subscriptions",
    "unit_words",
]
