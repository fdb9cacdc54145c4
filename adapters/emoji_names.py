"""What Slack and Mattermost share because both name their emoji (":white_check_mark:", "+1")
and both take a `/ricorda` slash command: the reactions that are a verdict, and the command's
usage line. Said once here; each platform's words.py adds only how to ask there."""

from __future__ import annotations

from core.catalog.lookup import say

COMMAND = "/ricorda"
# Slack sends skin tones as "+1::skin-tone-2" (core.chat.reactions normalises them away)
POSITIVE = frozenset({"white_check_mark", "heavy_check_mark", "+1", "ballot_box_with_check"})
NEGATIVE = frozenset({"x", "heavy_multiplication_x", "-1", "negative_squared_cross_mark"})


def ask_usage(language: str) -> str:
    return say("command_ask_usage", language, command=COMMAND)
