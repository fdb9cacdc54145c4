"""Questions in, answers out: text messages, /ask, and taps on narrowing buttons."""

from __future__ import annotations

import logging
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
from adapters.telegram.addressing import is_private, question_for_bot
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
from core.chat_replies import language_for, reply
from core.errors import StorageError
from core.option_tap import chosen_label, tap_key, tap_request
from core.presentation import present
from core.types import Answer, Request, Table

log = logging.getLogger("ricorda.telegram")
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


class Questions:
    def __init__(self, services: TelegramServices) -> None:
        self.s = services

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
            await message.reply_text(reply("ask_usage", language))
            return
        await self._answer(context.bot, message, question.strip())

    async def on_option(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A narrowing button: re-ask the stored question with that slot fixed, as a reply."""
        query = update.callback_query
        if query is None:
            return
        decoded = self.s.signer.decode_option(query.data)
        request = None
        if decoded is not None and query.message is not None:
            turn = await self.s.run(self.s.turns.get_turn, decoded[0])
            request = tap_request(turn, decoded[1], chat=chat_key(query.message.chat.id),
                                  user=user_key(query.from_user.id), today=self.s.today())
        if request is None or query.message is None:
            log.info("expired or forged option button from %s", user_key(query.from_user.id))
            language = language_for(query.from_user.language_code)
            await query.answer(reply("expired", language), show_alert=True)
            return
        assert decoded is not None
        if not await self.s.use_once(tap_key(*decoded)):  # each option answered once
            await query.answer(reply("already_answered", language_for(
                query.from_user.language_code)))
            return
        await query.answer()
        await self._mark_chosen(query, decoded[1])
        answer = await self._ask(context.bot, query.message.chat.id, request)
        await self.send_answer(context.bot, query.message.chat.id, answer,
                               reply_to=query.message.message_id)

    async def on_header(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A group's header button is a label, not a choice: acknowledge the tap quietly."""
        if update.callback_query is not None:
            await update.callback_query.answer()

    @staticmethod
    async def _mark_chosen(query: CallbackQuery, index: int) -> None:
        """The keyboard shows which option was answered (the others stay available): the
        tapped button is found by its own callback data, wherever its group put it."""
        message = query.message
        markup = getattr(message, "reply_markup", None)
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

    async def _answer(self, bot: Bot, message: Message, question: str) -> None:
        assert message.from_user is not None
        request = Request(text=question, chat=chat_key(message.chat.id),
                          user=user_key(message.from_user.id), reference_date=self.s.today())
        answer = await self._ask(bot, message.chat.id, request)
        reply_to = None if is_private(message) else message.message_id
        await self.send_answer(bot, message.chat.id, answer, reply_to=reply_to)

    async def _ask(self, bot: Bot, chat_id: int, request: Request) -> Answer:
        async def typing() -> object:
            return await bot.send_chat_action(chat_id, ChatAction.TYPING)

        async with typing_while(typing, delay=self.s.typing_delay):
            return await self.s.run(self.s.ask, request)

    async def send_answer(self, bot: Bot, chat_id: int, answer: Answer, *,
                          reply_to: int | None = None) -> list[int]:
        """Send the answer: its chart first when it has one (the table as the photo's caption
        when it fits), then the text (split if long, buttons under the last part). Remember
        which messages show which turn, so reactions on them (the photo too) count after a
        restart too."""
        sent: list[int] = []
        chart = await chart_for(answer, self.s.chart)
        if chart is not None:
            table, png = chart
            photo, with_table = await self._send_chart(bot, chat_id, table, png,
                                                       reply_to=reply_to)
            if photo is not None:
                sent.append(photo)
                reply_to = None  # the text follows the photo, which is the reply
                if with_table:  # the caption shows the table: the text need not repeat it
                    answer = replace(answer, segments=[
                        s for s in answer.segments if s is not table])
        shown = present(answer, show_footer=self.s.show_footer)
        keyboard = options_keyboard(self.s.signer, answer.turn_id, shown.groups)
        texts = pack(answer_parts(shown))
        if not texts and (not sent or keyboard is not None):
            texts = answer_messages(shown)
        for i, text in enumerate(texts):
            last = i == len(texts) - 1
            msg = await bot.send_message(
                chat_id, text, parse_mode=ParseMode.HTML, link_preview_options=NO_PREVIEW,
                reply_markup=keyboard if last else None,
                reply_parameters=ReplyParameters(reply_to, allow_sending_without_reply=True)
                if reply_to is not None and i == 0 else None,
            )
            sent.append(msg.message_id)
        try:
            await self.s.run(self._map, chat_id, sent, answer.turn_id)
        except StorageError as exc:  # the answer is out; only its feedback link is lost
            log.warning("cannot map messages to turn %s: %s", answer.turn_id, exc)
        return sent

    @staticmethod
    async def _send_chart(bot: Bot, chat_id: int, table: Table, png: bytes, *,
                          reply_to: int | None) -> tuple[int | None, bool]:
        """The chart as a photo: (its message id or None when Telegram refused it, whether
        its caption shows the table). A refused photo is logged; the text still goes out."""
        caption = table_caption(table)
        with_table = utf16_len(caption) <= CAPTION_LIMIT
        try:
            msg = await bot.send_photo(
                chat_id, png, filename="chart.png",
                caption=caption if with_table else title_caption(table),
                parse_mode=ParseMode.HTML,
                reply_parameters=ReplyParameters(reply_to, allow_sending_without_reply=True)
                if reply_to is not None else None,
            )
        except TelegramError as exc:
            log.warning("chart not sent to %s: %s", chat_key(chat_id), exc)
            return None, False
        return msg.message_id, with_table

    def _map(self, chat_id: int, message_ids: list[int], turn_id: str) -> None:
        for message_id in message_ids:
            self.s.turns.map_message(PLATFORM, chat_key(chat_id), message_id, turn_id)
