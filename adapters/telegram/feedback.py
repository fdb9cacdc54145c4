"""Reactions and ✓/✗ replies on the bot's own answers become verdicts on their turns.

Only messages the bot sent for a turn count (the message map is in the database, so this holds
after a restart); a reaction on anything else is ignored with a log line. A changed reaction
replaces the user's earlier verdict; removing it withdraws the verdict.

A reaction is acknowledged with the bot's own reaction on the same message (`ACK`), never with
a chat message: ✍ reads "noted down" whichever way the user voted (👌 or 👍 would look like the
bot agreeing with a 👎), it is in Telegram's fixed reaction set, and it is in neither verdict
set, so a user tapping it casts no vote. It goes when the last verdict on the answer is
withdrawn. An acknowledgement Telegram refuses (a chat that limits reactions, a deleted message)
is logged and dropped: the verdict is recorded first and stands.
"""

from __future__ import annotations

import logging

from telegram import Bot, Message, ReactionTypeEmoji, Update
from telegram.constants import ReactionEmoji
from telegram.error import TelegramError
from telegram.ext import ContextTypes, filters

from adapters.telegram.addressing import replies_to_bot
from adapters.telegram.services import PLATFORM, TelegramServices, chat_key, user_key
from core.catalog.lookup import say
from core.chat.chat_replies import language_for
from core.chat.chat_turn import ChatTurns
from core.chat.reactions import ReactionVerdicts

log = logging.getLogger("ricorda.telegram")
ACK = ReactionEmoji.WRITING_HAND  # "✍"


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
        self.turns = ChatTurns(services, PLATFORM)

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
        shown = await self.turns.reaction(chat=chat_key(change.chat.id),
                                          message_id=change.message_id, user=user,
                                          old=old, new=new)
        if shown is not None:
            await acknowledge(context.bot, change.chat.id, change.message_id, shown=shown)

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
            await message.reply_text(say(f"noted_{verdict}", language))


async def acknowledge(bot: Bot, chat_id: int, message_id: int, *, shown: bool) -> None:
    """Set (or clear) the bot's reaction on an answer; a refusal is logged, never raised."""
    try:
        await bot.set_message_reaction(chat_id, message_id, [ACK] if shown else [])
    except TelegramError as exc:  # the verdict is recorded already; the mark is a courtesy
        log.info("cannot %s the reaction on message %s in %s: %s (%s)",
                 "set" if shown else "clear", message_id, chat_key(chat_id),
                 exc.__class__.__name__, exc.message[:80])
