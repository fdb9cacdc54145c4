"""Plans remembered and replayed: L0a/L0b/L1, autopaths, feedback, learning.

The modules are imported by name (`from core.fastpath.autopath import ...`); none is
imported here, so importing one loads only what it needs."""

__all__ = [
    "autopath",
    "autopath_index",
    "autopath_score",
    "autopath_verdicts",
    "canonical",
    "cosine_index",
    "feedback",
    "learning",
    "plan_cache",
    "rejections",
    "thresholds",
    "verified",
]
