"""Where one Telegram reply goes (a chat, the message it answers, the tap it follows), in
Telegram's markup: what core.chat.dispatch decided, sent through the Bot API."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager

from telegram import (
    Bot,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyParameters,
)
from telegram.constants import ChatAction, ParseMode, ReactionEmoji
from telegram.error import TelegramError

from adapters.telegram.keyboards import choice_keyboard, options_keyboard, purge_keyboard
from adapters.telegram.render import (
    CAPTION_LIMIT,
    Part,
    answer_messages,
    answer_parts,
    pack,
    table_caption,
    title_caption,
    utf16_len,
)
from adapters.telegram.services import TelegramServices, chat_key
from adapters.typing_action import typing_while
from core.catalog.presentation import Presentation
from core.chat.chat_replies import language_for
from core.chat.feedback_reasons import owns
from core.chat.option_tap import chosen_label
from core.chat.oversized import Attachment
from core.contracts.types import Answer, Table

log = logging.getLogger("ricorda.telegram")
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# a verdict is acknowledged with the bot's own reaction: ✍ reads "noted down" whichever way the
# user voted, is in Telegram's fixed reaction set and in neither verdict set
ACK = ReactionEmoji.WRITING_HAND


class TelegramPort:
    def __init__(self, services: TelegramServices, bot: Bot, chat_id: int, *,
                 reply_to: int | None = None, query: CallbackQuery | None = None,
                 locale: str | None = None) -> None:
        self.s, self.bot, self.chat_id = services, bot, chat_id
        self.reply_to, self.query, self.locale = reply_to, query, locale
        self._tap_answered = self._photo = False

    # -- an answer's pieces (core.chat.delivery decides which, and in what order) ------------

    def count(self, answer: Answer, shown: Presentation) -> int:
        return len(pack(answer_parts(shown)))

    def too_big(self, table: Table) -> bool:
        alone = Presentation(body="", sources_label="", segments=(table,))
        return len(pack(answer_parts(alone))) > 1

    async def send_chart(self, table: Table, png: bytes) -> tuple[int | None, bool]:
        """The chart as a photo, the table as its caption when it fits; a refused photo is
        logged (the text still goes out). The text then follows the photo, which is the reply."""
        caption = table_caption(table)
        with_table = utf16_len(caption) <= CAPTION_LIMIT
        try:
            msg = await self.bot.send_photo(
                self.chat_id, png, filename="chart.png",
                caption=caption if with_table else title_caption(table),
                parse_mode=ParseMode.HTML, reply_parameters=self._quote())
        except TelegramError as exc:
            log.warning("chart not sent to %s: %s", chat_key(self.chat_id), exc)
            return None, False
        self._photo, self.reply_to = True, None
        return msg.message_id, with_table

    async def send_messages(self, answer: Answer, shown: Presentation) -> list[int]:
        """The HTML messages (split if long), the option keyboard under the last."""
        keyboard = options_keyboard(self.s.signer, answer.turn_id, shown.groups)
        texts = pack(answer_parts(shown))
        if not texts and (not self._photo or keyboard is not None):
            texts = answer_messages(shown)
        sent: list[int] = []
        for i, text in enumerate(texts):
            msg = await self.bot.send_message(
                self.chat_id, text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW,
                reply_markup=keyboard if i == len(texts) - 1 else None,
                reply_parameters=self._quote() if i == 0 else None)
            sent.append(msg.message_id)
        return sent

    async def send_file(self, attachment: Attachment) -> int | None:
        """A table as a CSV document; a refused one is logged (the summary was sent)."""
        try:
            msg = await self.bot.send_document(self.chat_id, attachment.data,
                                               filename=attachment.filename)
        except TelegramError as exc:
            log.warning("table file not sent to %s: %s", chat_key(self.chat_id), exc)
            return None
        return msg.message_id

    # -- the other replies ---------------------------------------------------------------------

    async def note(self, text: str, *, alert: bool = False) -> None:
        if self.query is not None and not self._tap_answered:  # the tap's own answer
            self._tap_answered = True
            await self.query.answer(text, show_alert=alert)
            return
        await self.bot.send_message(self.chat_id, text, reply_parameters=self._quote())

    async def reply(self, text: str, *, monospace: bool = False) -> None:
        """Plain text; admin listings are tables: monospace, split to fit."""
        if not monospace:
            await self.bot.send_message(self.chat_id, text, reply_parameters=self._quote())
            return
        for chunk in pack([Part(text, "<pre>", "</pre>")]):
            await self.bot.send_message(self.chat_id, chunk, parse_mode=ParseMode.HTML,
                                        reply_parameters=self._quote())

    async def prompt(self, text: str, buttons: Sequence[tuple[str, str]]) -> None:
        if owns(buttons[0][1]):  # the reasons after a ✗: one button per row
            await self.bot.send_message(self.chat_id, text, reply_parameters=self._quote(),
                                        reply_markup=choice_keyboard(buttons))
            return
        (confirm, yes), (cancel, no) = buttons
        await self.bot.send_message(self.chat_id, text, reply_parameters=self._quote(),
                                    reply_markup=purge_keyboard((yes, no), confirm=confirm,
                                                                cancel=cancel))

    async def settle(self, text: str) -> None:
        """The prompt becomes its outcome: the buttons go, a prompt is answered once."""
        if self.query is not None:
            await self.query.answer()
            await self.query.edit_message_text(text)

    async def acknowledge(self, message: str | int, *, shown: bool,
                          verdict: str | None) -> None:
        """Set (or clear) the bot's reaction on an answer; a refusal (a chat that limits
        reactions, a deleted message) is logged: the verdict is recorded already."""
        try:
            await self.bot.set_message_reaction(self.chat_id, int(message),
                                                [ACK] if shown else [])
        except TelegramError as exc:
            log.info("cannot %s the reaction on message %s in %s: %s (%s)",
                     "set" if shown else "clear", message, chat_key(self.chat_id),
                     exc.__class__.__name__, exc.message[:80])

    async def language(self, question: str | None = None) -> str:
        return language_for(self.locale)

    def working(self) -> AbstractAsyncContextManager[object]:
        return typing_while(self.thinking, delay=self.s.typing_delay)

    async def thinking(self) -> None:
        """A model is planning the answer: "typing…" at once, not after the usual delay."""
        await self.bot.send_chat_action(self.chat_id, ChatAction.TYPING)

    async def chosen(self, index: int) -> None:
        """Acknowledge the tap, and show which option was answered (the others stay
        available): the tapped button is found by its own callback data."""
        query = self.query
        if query is None:
            return
        self._tap_answered = True
        await query.answer()
        markup = getattr(query.message, "reply_markup", None)
        if markup is None:
            return
        rows = [[InlineKeyboardButton(chosen_label(button.text),
                                      callback_data=button.callback_data)
                 if button.callback_data == query.data else button for button in row]
                for row in markup.inline_keyboard]
        try:
            await query.edit_message_reply_markup(InlineKeyboardMarkup(rows))
        except TelegramError as exc:  # cosmetic: the answer matters, not the mark
            log.info("cannot mark the chosen option: %s", exc.__class__.__name__)

    def _quote(self) -> ReplyParameters | None:
        return (ReplyParameters(self.reply_to, allow_sending_without_reply=True)
                if self.reply_to is not None else None)
