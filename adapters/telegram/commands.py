"""/start, /help, the admin commands, purge-all confirmation, and non-text messages."""

from __future__ import annotations

import logging

from telegram import Message, Update
from telegram.ext import ContextTypes

from adapters.telegram.addressing import is_private
from adapters.telegram.keyboards import purge_keyboard
from adapters.telegram.render import Part, pack
from adapters.telegram.services import PLATFORM, TelegramServices, chat_key
from adapters.telegram.words import how_to_ask
from core.catalog.lookup import say
from core.chat.chat_replies import help_text, language_for
from core.chat.chat_turn import ChatTurns

log = logging.getLogger("ricorda.telegram")


class Commands:
    def __init__(self, services: TelegramServices) -> None:
        self.s = services
        self.turns = ChatTurns(services, PLATFORM)

    async def on_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None:
            return
        language = _language(message)
        usage = await self.s.usage_text(language)
        shown = help_text(language, how_to_ask(language), usage)
        await message.reply_text(say("start", language) + "\n\n" + shown)

    async def on_help(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None:
            return
        language = _language(message)
        await message.reply_text(help_text(language, how_to_ask(language),
                                           await self.s.usage_text(language)))

    async def on_admin(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/fastpaths [n], /purge <id|all|question>, /autopaths, /stats: admins only."""
        message = update.effective_message
        if message is None or message.from_user is None or not message.text:
            return
        head, _, args = message.text.partition(" ")
        name = head.lstrip("/").split("@", 1)[0].lower()
        shown = await self.turns.admin(name, args, user_id=str(message.from_user.id),
                                       chat=chat_key(message.chat.id),
                                       language=_language(message))
        if shown.buttons:
            (confirm, yes), (cancel, no) = shown.buttons
            await message.reply_text(shown.text, reply_markup=purge_keyboard(
                (yes, no), confirm=confirm, cancel=cancel))
            return
        await self._reply_pre(message, shown.text)

    async def on_purge_choice(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Confirm / Cancel under a purge-all prompt: only the admin who asked, only soon."""
        query = update.callback_query
        if query is None:
            return
        language = language_for(query.from_user.language_code)
        chat = query.message.chat.id if query.message is not None else 0
        text = await self.turns.purge_tap(query.data, tapper_id=str(query.from_user.id),
                                          chat=chat_key(chat), language=language)
        if text is None:
            await query.answer(say("expired", language), show_alert=True)
            return
        await query.answer()
        await query.edit_message_text(text)  # the buttons go: a prompt is answered once

    async def on_non_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Photos, stickers, voice: a short note in private chats, silence in groups."""
        message = update.effective_message
        if message is None or not is_private(message):
            return
        await message.reply_text(say("text_only", _language(message)))

    async def on_stale_button(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Callback data nobody here understands: an old keyboard, or forged."""
        query = update.callback_query
        if query is not None:
            await query.answer(say("expired", language_for(query.from_user.language_code)),
                               show_alert=True)

    async def _reply_pre(self, message: Message, text: str) -> None:
        """Admin listings are tables: monospace, split to fit."""
        for chunk in pack([Part(text, "<pre>", "</pre>")]):
            await message.reply_html(chunk)


def _language(message: Message) -> str:
    return language_for(message.from_user.language_code if message.from_user else None)
