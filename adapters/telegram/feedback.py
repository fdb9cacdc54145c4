"""Reactions and ✓/✗ replies on the bot's own answers become verdicts on their turns.

Only messages the bot sent for a turn count (the message map is in the database, so this holds
after a restart); a reaction on anything else is ignored with a log line. A changed reaction
replaces the user's earlier verdict; removing it withdraws the verdict.
"""

from __future__ import annotations

import logging

from telegram import Message, ReactionTypeEmoji, Update
from telegram.ext import ContextTypes, filters

from adapters.telegram.addressing import replies_to_bot
from adapters.telegram.services import PLATFORM, TelegramServices, chat_key, user_key
from core.chat_replies import language_for, reply
from core.reactions import ReactionVerdicts

log = logging.getLogger("ricorda.telegram")


class VerdictReply(filters.MessageFilter):
    """A reply whose whole text is a check or cross mark ("✓", "✅", "✗", "❌")."""

    def __init__(self, verdicts: ReactionVerdicts) -> None:
        super().__init__(name="VerdictReply")
        self.verdicts = verdicts

    def filter(self, message: Message) -> bool:
        return message.reply_to_message is not None and (
            self.verdicts.for_reply(message.text) is not None)


class Reactions:
    def __init__(self, services: TelegramServices) -> None:
        self.s = services

    async def on_reaction(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        change = update.message_reaction
        if change is None:
            return
        if change.user is not None:
            user = user_key(change.user.id)
        elif change.actor_chat is not None:  # an anonymous group admin reacts as the group
            user = f"{PLATFORM}:chat{change.actor_chat.id}"
        else:
            return
        old = [r.emoji for r in change.old_reaction if isinstance(r, ReactionTypeEmoji)]
        new = [r.emoji for r in change.new_reaction if isinstance(r, ReactionTypeEmoji)]
        verdict, withdrawn = self.s.verdicts.for_reaction_change(PLATFORM, old, new)
        if verdict is None and not withdrawn:
            return
        turn_id = await self.s.run(self.s.turns.turn_for_message, PLATFORM,
                                   chat_key(change.chat.id), change.message_id)
        if turn_id is None:
            log.info("reaction on message %s in %s: not one of my answers, ignored",
                     change.message_id, chat_key(change.chat.id))
            return
        if verdict is None:
            await self.s.run(self.s.feedback.withdraw, turn_id, user)
        else:
            await self.s.run(self.s.feedback.record, turn_id, user, verdict, via="reaction")

    async def on_verdict_reply(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """"✓" / "✗" as a reply to one of the bot's answers."""
        message = update.effective_message
        if message is None or message.from_user is None or message.reply_to_message is None:
            return
        if not replies_to_bot(message, context.bot.id):
            return
        verdict = self.s.verdicts.for_reply(message.text)
        turn_id = await self.s.run(self.s.turns.turn_for_message, PLATFORM,
                                   chat_key(message.chat.id), message.reply_to_message.message_id)
        if verdict is None or turn_id is None:
            log.info("verdict reply to a message that is not an answer, ignored")
            return
        outcome = await self.s.run(self.s.feedback.record, turn_id,
                                   user_key(message.from_user.id), verdict, via="reply")
        if getattr(outcome, "applied", True):
            language = language_for(message.from_user.language_code)
            await message.reply_text(reply(f"noted_{verdict}", language))
