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


def language_for(locale: str | None) -> str:
    """A platform locale ("it", "zh-hans", "en-GB") -> one of the languages the bot speaks."""
    code = (locale or "").strip().lower().replace("_", "-").split("-", 1)[0]
    return code if code in LANGUAGES else "en"


def reply(key: str, language: str, **values: object) -> str:
    table = _TEXT[key]
    return (table.get(language) or table["en"]).format(**values)


def help_text(language: str) -> str:
    """What to ask (with examples) and how to ask it, in the user's language."""
    return "\n\n".join([say("usage", language), reply("help_more", language)])
