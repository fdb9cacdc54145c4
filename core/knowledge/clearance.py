"""What a viewer that is not cleared for RESTRICTED data sees in place of a question.

The rule (docs/fast-path.md, "Clearance in admin outputs"): a cached plan, turn, L1 observation or
promotion proposal is RESTRICTED when its question was asked from a chat cleared for restricted
data. The question itself may name what is restricted ("What is Project Heron?") even when the
answer used nothing restricted, so the chat decides, not the answer. Its text is shown only
where the viewing chat is cleared (the CLI is: whoever runs it can read the database); other
viewers, and the logs, get a placeholder with the id and counts.
"""

from __future__ import annotations

RESTRICTED_QUESTION = "(restricted question)"
RESTRICTED_PROPOSAL = "(restricted proposal)"


def shown_question(text: str, *, restricted: bool, cleared: bool, width: int = 80) -> str:
    """`text` for a viewer: a restricted question is marked for a cleared viewer and replaced
    by RESTRICTED_QUESTION for everyone else."""
    if not restricted:
        return text[:width]
    return "[restricted] " + text[:width] if cleared else RESTRICTED_QUESTION
