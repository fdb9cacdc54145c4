"""The sentences a chat adapter says around answers (help, expired button, errors), in the
user's language. Shared by Telegram and Slack so both say the same thing; markup is theirs."""

from __future__ import annotations

from core.messages import LANGUAGES, say

_TEXT: dict[str, dict[str, str]] = {
    "start": {
        "en": "Hi! I answer questions about the company's figures and documents, with sources.",
        "it": "Ciao! Rispondo a domande su dati e documenti aziendali, citando le fonti.",
        "zh": "你好！我可以根据公司的数据和文档回答问题，并注明来源。",
    },
    "help_more": {
        "en": "In a group, mention me, reply to one of my answers, or use /ask <question>. "
        "React with 👍 or 👎 to an answer to tell me whether it was right.",
        "it": "In un gruppo, menzionami, rispondi a una mia risposta oppure usa /ask <domanda>. "
        "Reagisci con 👍 o 👎 a una risposta per dirmi se era giusta.",
        "zh": "在群组中，请@我、回复我的回答，或使用 /ask <问题>。"
        "对回答点 👍 或 👎，告诉我它是否正确。",
    },
    "ask_usage": {
        "en": "Write the question after the command: /ask What was revenue in FY2024?",
        "it": "Scrivi la domanda dopo il comando: /ask Qual è stato il fatturato nel 2024?",
        "zh": "请在命令后写问题：/ask 2024年营收是多少？",
    },
    "help_more_slack": {  # {command}: the slash command; :names: are Slack's emoji
        "en": "In a channel, mention me; in a DM, just write. `{command} ask <question>` answers "
        "only you. React to an answer with :white_check_mark: or :x: to tell me whether it "
        "was right.",
        "it": "In un canale, menzionami; in un messaggio diretto, scrivi e basta. "
        "`{command} ask <domanda>` risponde solo a te. Reagisci a una risposta con "
        ":white_check_mark: o :x: per dirmi se era giusta.",
        "zh": "在频道中请@我；在私信中直接写即可。`{command} ask <问题>` 只回复你一人。"
        "对回答添加 :white_check_mark: 或 :x: 表情，告诉我它是否正确。",
    },
    "ask_usage_slack": {
        "en": "Write the question after the command: `{command} ask What was revenue in FY2024?`",
        "it": "Scrivi la domanda dopo il comando: "
        "`{command} ask Qual è stato il fatturato nel 2024?`",
        "zh": "请在命令后写问题：`{command} ask 2024年营收是多少？`",
    },
    "already_answered": {
        "en": "Already answered above.",
        "it": "Ho già risposto qui sopra.",
        "zh": "已在上方回答。",
    },
    "expired": {
        "en": "This button has expired. Please ask the question again.",
        "it": "Questo pulsante è scaduto. Fai di nuovo la domanda.",
        "zh": "此按钮已失效，请重新提问。",
    },
    "text_only": {
        "en": "I can only answer text questions.",
        "it": "Posso rispondere solo a domande scritte.",
        "zh": "我只能回答文字问题。",
    },
    "failed": {
        "en": "Sorry, something went wrong while answering. Please try again.",
        "it": "Scusa, qualcosa è andato storto. Riprova.",
        "zh": "抱歉，回答时出错了，请重试。",
    },
    "noted_positive": {
        "en": "Thanks, noted as correct.",
        "it": "Grazie, segnata come corretta.",
        "zh": "谢谢，已记为正确。",
    },
    "noted_negative": {
        "en": "Thanks, noted as wrong: I will work it out afresh next time.",
        "it": "Grazie, segnata come sbagliata: la prossima volta la rielaboro da capo.",
        "zh": "谢谢，已记为错误：下次我会重新解答。",
    },
}


def supported_language(locale: str | None) -> str | None:
    """A platform locale ("it", "zh-hans", "it-IT", "en_GB") -> the bot's language for it, or
    None when the bot does not speak it (the caller picks the fallback)."""
    code = (locale or "").strip().lower().replace("_", "-").split("-", 1)[0]
    return code if code in LANGUAGES else None


def language_for(locale: str | None) -> str:
    """A platform locale -> one of the languages the bot speaks; English when it speaks none."""
    return supported_language(locale) or "en"


def reply(key: str, language: str, **values: object) -> str:
    table = _TEXT[key]
    return (table.get(language) or table["en"]).format(**values)


def help_text(language: str, usage: str | None = None) -> str:
    """What to ask (with examples: `usage`, from the loaded knowledge base, else the generic
    ones) and how to ask it, in the user's language."""
    return "\n\n".join([usage or say("usage", language), reply("help_more", language)])
