"""Is a Telegram message a question for the bot, and what is the question?

Private chats: every text message. Groups: a message that mentions the bot (the mention is
removed from the question) or replies to one of the bot's messages; `/ask` is a command
handler of its own. Everything else in a group is people talking to each other: silence.
"""

from __future__ import annotations

from telegram import Message, MessageEntity
from telegram.constants import ChatType


def is_private(message: Message) -> bool:
    return message.chat.type == ChatType.PRIVATE


def replies_to_bot(message: Message, bot_id: int) -> bool:
    replied = message.reply_to_message
    return bool(replied and replied.from_user and replied.from_user.id == bot_id)


def question_for_bot(message: Message, *, bot_id: int, bot_username: str | None) -> str | None:
    """The question text, or None when the message is not addressed to the bot."""
    text = message.text or ""
    if is_private(message):
        return text.strip() or None
    stripped, mentioned = _without_mention(message, bot_id, bot_username)
    if mentioned or replies_to_bot(message, bot_id):
        return stripped.strip() or None
    return None


def _without_mention(message: Message, bot_id: int, username: str | None) -> tuple[str, bool]:
    text = message.text or ""
    handle = f"@{username}".lower() if username else None
    cuts: list[tuple[int, int]] = []
    for entity, value in message.parse_entities([MessageEntity.MENTION,
                                                  MessageEntity.TEXT_MENTION]).items():
        ours = (entity.type == MessageEntity.MENTION and handle and value.lower() == handle) or (
            entity.type == MessageEntity.TEXT_MENTION and entity.user and entity.user.id == bot_id)
        if ours:
            cuts.append((entity.offset, entity.length))
    if not cuts:
        return text, False
    # entity offsets are UTF-16 code units: cut in that space, then decode back
    units = text.encode("utf-16-le")
    for offset, length in sorted(cuts, reverse=True):
        units = units[: offset * 2] + units[(offset + length) * 2:]
    return " ".join(units.decode("utf-16-le").split()), True


def conversation_key(message: Message) -> str:
    """Which conversation a question continues (core.question.conversation): a private chat is one;
    in a group each member has their own (per forum topic), so "and Italy?" continues the
    asker's own last question, whoever else asked something in between. "" = the chat."""
    if is_private(message) or message.from_user is None:
        return ""
    key = f"telegram:{message.chat.id}:user:{message.from_user.id}"
    if message.is_topic_message and message.message_thread_id is not None:
        key += f":topic:{message.message_thread_id}"
    return key
