"""Sentences a chat says around answers on every platform (greeting, expired button,
errors, feedback noted). Words only one platform says live in its adapter's words.py."""

from __future__ import annotations

from core.catalog.sentence import Sentence

SENTENCES: dict[str, Sentence] = {
    "start": {
        "en": "Hi! I answer questions about the company's figures and documents, with sources.",
        "it": "Ciao! Rispondo a domande su dati e documenti aziendali, citando le fonti.",
        "zh": "你好！我可以根据公司的数据和文档回答问题，并注明来源。",
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
    "command_ask_usage": {  # {command}: the platform's slash command
        "en": "Write the question after the command: `{command} ask What was revenue in FY2024?`",
        "it": "Scrivi la domanda dopo il comando: "
        "`{command} ask Qual è stato il fatturato nel 2024?`",
        "zh": "请在命令后写问题：`{command} ask 2024年营收是多少？`",
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
