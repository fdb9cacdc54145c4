"""Telegram updates -> neutral events for core.chat.dispatch: text messages (questions, and
✓/✗ replies to an answer), commands, button taps, reactions. Only the parsing lives here;
every flow is the dispatcher's, every reply is marked up by adapters/telegram/port.py."""

from __future__ import annotations

from telegram import Message, ReactionTypeEmoji, Update
from telegram.ext import ContextTypes

from adapters.charts import chart_for
from adapters.telegram.addressing import (
    conversation_key,
    is_private,
    question_for_bot,
    replies_to_bot,
)
from adapters.telegram.port import TelegramPort
from adapters.telegram.services import PLATFORM, TelegramServices, chat_key
from adapters.telegram.words import NEGATIVE, POSITIVE, ask_usage, how_to_ask
from core.catalog.lookup import say
from core.chat.chat_replies import language_for
from core.chat.dispatch import MESSAGE, REACTION, TAP, Dispatcher, Inbound, PlatformWords


class Handlers:
    def __init__(self, services: TelegramServices) -> None:
        self.s = services
        self.dispatcher = Dispatcher(
            services, PLATFORM, PlatformWords(how_to_ask, ask_usage, None, POSITIVE, NEGATIVE),
            draw=lambda answer: chart_for(answer, services.chart))

    def _port(self, context: ContextTypes.DEFAULT_TYPE, message: Message) -> TelegramPort:
        """Replies quote the message in groups; a private chat needs no quote."""
        return TelegramPort(self.s, context.bot, message.chat.id,
                            reply_to=None if is_private(message) else message.message_id,
                            locale=message.from_user.language_code if message.from_user
                            else None)

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Any text message: a question in private chats, in groups only when addressed; a
        reply to one of the bot's answers may be a ✓/✗ verdict."""
        message = update.effective_message
        if message is None or message.from_user is None:
            return
        question = question_for_bot(message, bot_id=context.bot.id,
                                    bot_username=context.bot.username)
        reply_to = message.reply_to_message
        event = Inbound(MESSAGE, chat_key(message.chat.id), str(message.from_user.id),
                        text=question or message.text or "", addressed=question is not None,
                        conversation=conversation_key(message),
                        reply_to=reply_to.message_id if reply_to is not None
                        and replies_to_bot(message, context.bot.id) else None)
        if event.addressed or event.reply_to is not None:
            await self.dispatcher.handle(event, self._port(context, message))

    async def on_command(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/start, /help, /ask <question>, the admin commands."""
        message = update.effective_message
        if message is None or message.from_user is None or not message.text:
            return
        event = Inbound.command_in(chat_key(message.chat.id), str(message.from_user.id),
                                   message.text, conversation=conversation_key(message))
        await self.dispatcher.handle(event, self._port(context, message))

    async def on_tap(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A narrowing option or a purge prompt's button (anything else: "expired")."""
        query = update.callback_query
        if query is None:
            return
        message = query.message
        port = TelegramPort(self.s, context.bot, message.chat.id if message else 0,
                            reply_to=message.message_id if message else None, query=query,
                            locale=query.from_user.language_code)
        event = Inbound(TAP, chat_key(port.chat_id), str(query.from_user.id),
                        token=query.data if message is not None else None)
        await self.dispatcher.handle(event, port)

    async def on_header(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group's header button is a label, not a choice: acknowledge the tap quietly."""
        if update.callback_query is not None:
            await update.callback_query.answer()

    async def on_reaction(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        change = update.message_reaction
        if change is None:
            return
        if change.user is not None:
            user = str(change.user.id)
        elif change.actor_chat is not None:  # an anonymous group admin reacts as the group
            user = f"chat{change.actor_chat.id}"
        else:
            return
        event = Inbound(REACTION, chat_key(change.chat.id), user, message=change.message_id,
                        old=tuple(r.emoji for r in change.old_reaction
                                  if isinstance(r, ReactionTypeEmoji)),
                        new=tuple(r.emoji for r in change.new_reaction
                                  if isinstance(r, ReactionTypeEmoji)))
        await self.dispatcher.handle(event, TelegramPort(self.s, context.bot, change.chat.id))

    async def on_non_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Photos, stickers, voice: a short note in private chats, silence in groups."""
        message = update.effective_message
        if message is None or not is_private(message):
            return
        language = language_for(message.from_user.language_code if message.from_user else None)
        await message.reply_text(say("text_only", language))
