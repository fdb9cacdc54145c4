"""Questions in, answers out: text messages, /ask, and taps on narrowing buttons."""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from dataclasses import replace

from telegram import (
    Bot,
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from adapters.charts import chart_for
from adapters.telegram.addressing import conversation_key, is_private, question_for_bot
from adapters.telegram.keyboards import options_keyboard
from adapters.telegram.render import (
    CAPTION_LIMIT,
    answer_messages,
    answer_parts,
    pack,
    table_caption,
    title_caption,
    utf16_len,
)
from adapters.telegram.services import PLATFORM, TelegramServices, chat_key, user_key
from adapters.telegram.typing_action import typing_while
from adapters.telegram.words import ask_usage
from core.chat.chat_replies import language_for
from core.chat.chat_turn import ChatTurns
from core.chat.option_tap import chosen_label
from core.chat.oversized import Attachment, fit
from core.chat.presentation import Presentation
from core.contracts.types import Answer, Request, Table

log = logging.getLogger("ricorda.telegram")


def _too_big(table: Table) -> bool:
    """A table whose grid alone would not fit in one message."""
    return len(pack(answer_parts(Presentation(body="", sources_label="", segments=(table,))))) > 1
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class TelegramPort:
    """Where one Telegram reply goes: a chat, the message it answers, the tap it follows."""

    def __init__(self, services: TelegramServices, bot: Bot, chat_id: int, *,
                 reply_to: int | None = None, query: CallbackQuery | None = None,
                 locale: str | None = None) -> None:
        self.s, self.bot, self.chat_id = services, bot, chat_id
        self.reply_to, self.query, self.locale = reply_to, query, locale
        self._tap_answered = False

    async def deliver(self, answer: Answer, shown: Presentation) -> list[int]:
        """The chart first when the answer has one (the table as the photo's caption when it
        fits), then the HTML messages (split if long), the option keyboard under the last."""
        sent: list[int] = []
        reply_to = self.reply_to
        chart = await chart_for(answer, self.s.chart)
        if chart is not None:
            table, png = chart
            photo, with_table = await self._send_chart(table, png, reply_to=reply_to)
            if photo is not None:
                sent.append(photo)
                reply_to = None  # the text follows the photo, which is the reply
                if with_table:  # the caption shows the table: the text need not repeat it
                    shown = replace(shown, segments=tuple(
                        s for s in shown.segments if s is not table))
        # at most max_messages for this answer, the chart included: a table too big for one
        # message goes as a CSV document (core.chat.oversized)
        room = self.s.max_messages - len(sent)

        def fitted(limit: int) -> tuple[Presentation, list[Attachment]]:
            return fit(original, language=answer.language, limit=max(1, limit),
                       count=lambda p: len(pack(answer_parts(p))), too_big=_too_big)

        original = shown
        shown, files = fitted(room)
        if files:  # each file is a message too
            shown, files = fitted(room - len(files))
        keyboard = options_keyboard(self.s.signer, answer.turn_id, shown.groups)
        texts = pack(answer_parts(shown))
        if not texts and (not sent or keyboard is not None):
            texts = answer_messages(shown)
        for i, text in enumerate(texts):
            last = i == len(texts) - 1
            msg = await self.bot.send_message(
                self.chat_id, text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW,
                reply_markup=keyboard if last else None,
                reply_parameters=ReplyParameters(reply_to, allow_sending_without_reply=True)
                if reply_to is not None and i == 0 else None,
            )
            sent.append(msg.message_id)
        for attachment in files:
            document = await self._send_file(attachment)
            if document is not None:
                sent.append(document)
        return sent

    async def _send_file(self, attachment: Attachment) -> int | None:
        """A table as a CSV document; a refused one is logged (the summary was sent)."""
        try:
            msg = await self.bot.send_document(self.chat_id, attachment.data,
                                               filename=attachment.filename)
        except TelegramError as exc:
            log.warning("table file not sent to %s: %s", chat_key(self.chat_id), exc)
            return None
        return msg.message_id

    async def _send_chart(self, table: Table, png: bytes, *,
                          reply_to: int | None) -> tuple[int | None, bool]:
        """The chart as a photo: (its message id or None when Telegram refused it, whether
        its caption shows the table). A refused photo is logged; the text still goes out."""
        caption = table_caption(table)
        with_table = utf16_len(caption) <= CAPTION_LIMIT
        try:
            msg = await self.bot.send_photo(
                self.chat_id, png, filename="chart.png",
                caption=caption if with_table else title_caption(table),
                parse_mode=ParseMode.HTML,
                reply_parameters=ReplyParameters(reply_to, allow_sending_without_reply=True)
                if reply_to is not None else None,
            )
        except TelegramError as exc:
            log.warning("chart not sent to %s: %s", chat_key(self.chat_id), exc)
            return None, False
        return msg.message_id, with_table

    async def note(self, text: str, *, alert: bool = False) -> None:
        if self.query is not None and not self._tap_answered:  # the tap's own answer
            self._tap_answered = True
            await self.query.answer(text, show_alert=alert)
            return
        await self.bot.send_message(self.chat_id, text, reply_parameters=ReplyParameters(
            self.reply_to, allow_sending_without_reply=True) if self.reply_to else None)

    async def language(self, question: str | None = None) -> str:
        return language_for(self.locale)

    def working(self) -> AbstractAsyncContextManager[object]:
        async def typing() -> object:
            return await self.bot.send_chat_action(self.chat_id, ChatAction.TYPING)

        return typing_while(typing, delay=self.s.typing_delay)

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
        rows = [
            [
                InlineKeyboardButton(chosen_label(button.text), callback_data=button.callback_data)
                if button.callback_data == query.data else button
                for button in row
            ]
            for row in markup.inline_keyboard
        ]
        try:
            await query.edit_message_reply_markup(InlineKeyboardMarkup(rows))
        except TelegramError as exc:  # cosmetic: the answer matters, not the mark
            log.info("cannot mark the chosen option: %s", exc.__class__.__name__)


class Questions:
    def __init__(self, services: TelegramServices) -> None:
        self.s = services
        self.turns = ChatTurns(services, PLATFORM)

    async def on_text(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Any text message: answered in private chats, in groups only when addressed."""
        message = update.effective_message
        if message is None or message.from_user is None:
            return
        question = question_for_bot(message, bot_id=context.bot.id,
                                    bot_username=context.bot.username)
        if question is None:
            return
        await self._answer(context.bot, message, question)

    async def on_ask(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """/ask <question>, the way to ask in a group without mentioning the bot."""
        message = update.effective_message
        if message is None or message.from_user is None:
            return
        _, _, question = (message.text or "").partition(" ")
        if not question.strip():
            language = language_for(message.from_user.language_code)
            await message.reply_text(ask_usage(language))
            return
        await self._answer(context.bot, message, question.strip())

    async def on_option(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A narrowing button: the stored question re-asked with that slot fixed, as a reply."""
        query = update.callback_query
        if query is None:
            return
        message = query.message
        port = TelegramPort(self.s, context.bot, message.chat.id if message else 0,
                            reply_to=message.message_id if message else None, query=query,
                            locale=query.from_user.language_code)
        await self.turns.tap(query.data if message is not None else None,
                             chat=chat_key(port.chat_id), user=user_key(query.from_user.id),
                             port=port)

    async def on_header(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group's header button is a label, not a choice: acknowledge the tap quietly."""
        if update.callback_query is not None:
            await update.callback_query.answer()

    async def _answer(self, bot: Bot, message: Message, question: str) -> None:
        assert message.from_user is not None
        request = Request(text=question, chat=chat_key(message.chat.id),
                          user=user_key(message.from_user.id), reference_date=self.s.today(),
                          conversation=conversation_key(message))
        reply_to = None if is_private(message) else message.message_id
        port = TelegramPort(self.s, bot, message.chat.id, reply_to=reply_to,
                            locale=message.from_user.language_code)
        await self.turns.answer(request, port)
