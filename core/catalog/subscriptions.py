"""Sentences of subscriptions (issue 36): schedules said back, the /subscribe, /subscriptions,
/unsubscribe and /timezone replies, and the lines around a scheduled answer."""

from __future__ import annotations

from core.catalog.sentence import Sentence

WEEKDAY_NAMES: dict[str, tuple[str, ...]] = {
    "en": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "it": ("lunedì", "martedì", "mercoledì", "giovedì", "venerdì", "sabato", "domenica"),
    "zh": ("一", "二", "三", "四", "五", "六", "日"),
}

SENTENCES: dict[str, Sentence] = {
    # a schedule said back: {time} "09:00", {zone} "Europe/Rome"
    "schedule_daily": {
        "en": "Every day at {time} {zone}",
        "it": "Ogni giorno alle {time} {zone}",
        "zh": "每天 {time}（{zone}）",
    },
    "schedule_weekdays": {
        "en": "Weekdays at {time} {zone}",
        "it": "Nei giorni feriali alle {time} {zone}",
        "zh": "每个工作日 {time}（{zone}）",
    },
    "schedule_weekly": {
        "en": "Every {day} at {time} {zone}",
        "it": "Ogni {day} alle {time} {zone}",
        "zh": "每周{day} {time}（{zone}）",
    },
    "schedule_monthly": {
        "en": "On day {day} of every month at {time} {zone}",
        "it": "Il giorno {day} di ogni mese alle {time} {zone}",
        "zh": "每月{day}日 {time}（{zone}）",
    },
    "subscribed": {
        "en": "Subscribed (#{id}). {schedule}: {question}",
        "it": "Iscrizione fatta (#{id}). {schedule}: {question}",
        "zh": "已订阅（#{id}）。{schedule}：{question}",
    },
    "subscription_keep": {"en": "OK", "it": "OK", "zh": "好"},
    "subscription_cancel": {"en": "Cancel", "it": "Annulla", "zh": "取消"},
    "subscription_cancelled": {
        "en": "Subscription #{id} cancelled.",
        "it": "Iscrizione #{id} annullata.",
        "zh": "订阅 #{id} 已取消。",
    },
    "help_subscriptions": {
        "en": "The bot can also write first: /subscribe every Monday 9:00 revenue last month "
              "(a question on a schedule), /alert when revenue falls more than 10% month on "
              "month; /subscriptions and /alerts list them.",
        "it": "Il bot può anche scrivere per primo: /subscribe ogni lunedì alle 9 fatturato del "
              "mese scorso (una domanda a orario), /alert quando il fatturato scende di oltre "
              "il 10% su base mensile; /subscriptions e /alerts le elencano.",
        "zh": "机器人也可以主动发送：/subscribe 每周一 9点 上个月营收（定时提问），"
              "/alert 当营收环比下降超过10%时（提醒）；/subscriptions 和 /alerts 列出它们。",
    },
    "subscribe_usage": {
        "en": "Write when, then the question: /subscribe every Monday 9:00 revenue by entity "
              "last month. Schedules: daily at 8, weekdays, every Friday 17:30, the first of "
              "the month.",
        "it": "Scrivi quando, poi la domanda: /subscribe ogni lunedì alle 9 fatturato per "
              "società del mese scorso. Orari: ogni giorno alle 8, nei giorni feriali, ogni "
              "venerdì alle 17:30, il primo del mese.",
        "zh": "先写时间，再写问题：/subscribe 每周一 9点 上个月各公司营收。时间可以是：每天8点、"
              "工作日、每周五17:30、每月1日。",
    },
    "subscribe_bad_schedule": {
        "en": "I could not read a schedule at the start of your request. {usage}",
        "it": "Non riesco a leggere un orario all'inizio della richiesta. {usage}",
        "zh": "无法识别请求开头的时间安排。{usage}",
    },
    "subscribe_no_question": {
        "en": "What should I send then? Write the question after the schedule. {usage}",
        "it": "Che cosa devo inviare? Scrivi la domanda dopo l'orario. {usage}",
        "zh": "要发送什么内容？请在时间后面写上问题。{usage}",
    },
    "subscribe_too_long": {
        "en": "That request is {n} characters long; a subscription takes at most {max}. "
              "Write a shorter question.",
        "it": "La richiesta è lunga {n} caratteri; un'iscrizione ne ammette al massimo {max}. "
              "Scrivi una domanda più breve.",
        "zh": "该请求有 {n} 个字符，订阅最多 {max} 个字符。请写一个更短的问题。",
    },
    "subscribe_limit": {
        "en": "This chat already holds {max} subscriptions, the most it may. Cancel one with "
              "/unsubscribe N first (/subscriptions lists them).",
        "it": "Questa chat ha già {max} iscrizioni, il massimo consentito. Annullane prima una "
              "con /unsubscribe N (/subscriptions le elenca).",
        "zh": "此聊天已有 {max} 个订阅，已达上限。请先用 /unsubscribe N 取消一个"
              "（/subscriptions 可列出）。",
    },
    "subscriptions_none": {
        "en": "This chat has no subscriptions. Make one with /subscribe every Monday 9:00 "
              "followed by a question.",
        "it": "Questa chat non ha iscrizioni. Creane una con /subscribe ogni lunedì alle 9 "
              "seguito da una domanda.",
        "zh": "此聊天没有订阅。可用 /subscribe 每周一 9点 加上问题来创建。",
    },
    "subscriptions_header": {
        "en": "Subscriptions of this chat ({zone}):",
        "it": "Iscrizioni di questa chat ({zone}):",
        "zh": "此聊天的订阅（{zone}）：",
    },
    "subscriptions_all_header": {
        "en": "Every subscription ({n}):",
        "it": "Tutte le iscrizioni ({n}):",
        "zh": "全部订阅（{n}）：",
    },
    "subscription_paused_mark": {"en": "(paused)", "it": "(sospesa)", "zh": "（已暂停）"},
    "subscription_restricted": {
        "en": "[a question from a cleared chat]",
        "it": "[una domanda da una chat autorizzata]",
        "zh": "[来自授权聊天的问题]",
    },
    "unsubscribe_usage": {
        "en": "Write the subscription's number, as /subscriptions lists it: /unsubscribe 3",
        "it": "Scrivi il numero dell'iscrizione, come lo mostra /subscriptions: /unsubscribe 3",
        "zh": "请写订阅编号（见 /subscriptions）：/unsubscribe 3",
    },
    "unsubscribe_unknown": {
        "en": "This chat has no subscription #{id}.",
        "it": "Questa chat non ha l'iscrizione #{id}.",
        "zh": "此聊天没有订阅 #{id}。",
    },
    "timezone_shown": {
        "en": "This chat's time zone is {zone}. Change it with /timezone Europe/Rome.",
        "it": "Il fuso orario di questa chat è {zone}. Cambialo con /timezone Europe/Rome.",
        "zh": "此聊天的时区是 {zone}。可用 /timezone Asia/Shanghai 更改。",
    },
    "timezone_set": {
        "en": "This chat's time zone is now {zone}: new subscriptions use it.",
        "it": "Il fuso orario di questa chat ora è {zone}: le nuove iscrizioni lo usano.",
        "zh": "此聊天的时区已设为 {zone}，新的订阅将使用它。",
    },
    "timezone_unknown": {
        "en": "I do not know the time zone “{zone}”. Write it as Europe/Rome, America/New_York "
              "or Asia/Shanghai.",
        "it": "Non conosco il fuso orario “{zone}”. Scrivilo come Europe/Rome, "
              "America/New_York o Asia/Shanghai.",
        "zh": "不认识时区“{zone}”。请写成 Asia/Shanghai、Europe/Rome 或 America/New_York。",
    },
    "delivery_header": {
        "en": "Scheduled (#{id}) · {schedule}: {question}",
        "it": "Programmato (#{id}) · {schedule}: {question}",
        "zh": "定时发送（#{id}）· {schedule}：{question}",
    },
    "delivery_late": {
        "en": "Sent late: it was due at {due} while the bot was not running.",
        "it": "Inviato in ritardo: era previsto alle {due}, quando il bot non era attivo.",
        "zh": "延迟发送：原定于 {due}，当时机器人未运行。",
    },
    # alerts: {condition} as the chat wrote it, {comparison} alert_change or alert_level
    "alert_fired": {
        "en": "Alert (#{id}): {condition}\n{comparison}",
        "it": "Avviso (#{id}): {condition}\n{comparison}",
        "zh": "提醒（#{id}）：{condition}\n{comparison}",
    },
    "alert_change": {
        "en": "{latest} against {previous}: {change} (sources: {sources})",
        "it": "{latest} rispetto a {previous}: {change} (fonti: {sources})",
        "zh": "{latest}，对比 {previous}：{change}（来源：{sources}）",
    },
    "alert_level": {
        "en": "{latest} (source: {sources})",
        "it": "{latest} (fonte: {sources})",
        "zh": "{latest}（来源：{sources}）",
    },
    "alert_made": {
        "en": "Alert set (#{id}): {condition}. I will write here when it becomes true, after "
              "the figures change. Now: {now}",
        "it": "Avviso impostato (#{id}): {condition}. Scriverò qui quando diventa vero, dopo "
              "che i dati cambiano. Ora: {now}",
        "zh": "已设置提醒（#{id}）：{condition}。数据更新后条件成立时，我会在这里通知。当前：{now}",
    },
    "alert_no_figures": {
        "en": "no figures to compare yet",
        "it": "ancora nessun dato da confrontare",
        "zh": "尚无可比较的数据",
    },
    "alert_usage": {
        "en": "Write the condition like this: /alert when China revenue falls more than 10% "
              "month on month, or /alert when China revenue above 500 (in the metric's unit). "
              "Also: rises, below.",
        "it": "Scrivi la condizione così: /alert quando il fatturato Cina scende di oltre il "
              "10% su base mensile, oppure /alert quando il fatturato Cina sopra 500 (nell'unità "
              "della metrica). Anche: sale, sotto.",
        "zh": "请这样写条件：/alert 当中国营收环比下降超过10%时，或 /alert 中国营收高于500"
              "（按该指标的单位）。也可以用：上升、低于。",
    },
    "alert_no_subject": {
        "en": "I could not tell which one figure “{subject}” means: name one metric and at "
              "most one entity, for example China revenue.",
        "it": "Non capisco quale dato indichi “{subject}”: nomina una metrica e al massimo una "
              "società, per esempio fatturato Cina.",
        "zh": "无法确定“{subject}”指的是哪一个数据：请写一个指标，最多一个公司，例如中国营收。",
    },
    "alert_limit": {
        "en": "This chat already holds {max} alerts, the most it may. Remove one with "
              "/unalert N first (/alerts lists them).",
        "it": "Questa chat ha già {max} avvisi, il massimo consentito. Rimuovine prima uno con "
              "/unalert N (/alerts li elenca).",
        "zh": "此聊天已有 {max} 个提醒，已达上限。请先用 /unalert N 删除一个（/alerts 可列出）。",
    },
    "alerts_none": {
        "en": "This chat has no alerts. Set one with /alert when China revenue falls more "
              "than 10% month on month.",
        "it": "Questa chat non ha avvisi. Impostane uno con /alert quando il fatturato Cina "
              "scende di oltre il 10% su base mensile.",
        "zh": "此聊天没有提醒。可用 /alert 当中国营收环比下降超过10%时 来设置。",
    },
    "alerts_header": {
        "en": "Alerts of this chat:",
        "it": "Avvisi di questa chat:",
        "zh": "此聊天的提醒：",
    },
    "unalert_usage": {
        "en": "Write the alert's number, as /alerts lists it: /unalert 2",
        "it": "Scrivi il numero dell'avviso, come lo mostra /alerts: /unalert 2",
        "zh": "请写提醒编号（见 /alerts）：/unalert 2",
    },
    "alert_cancelled": {
        "en": "Alert #{id} removed.",
        "it": "Avviso #{id} rimosso.",
        "zh": "提醒 #{id} 已删除。",
    },
    "unalert_unknown": {
        "en": "This chat has no alert #{id}.",
        "it": "Questa chat non ha l'avviso #{id}.",
        "zh": "此聊天没有提醒 #{id}。",
    },
    "subscribe_unreadable": {
        "en": "I cannot answer “{question}” as it stands, so there would be nothing to send. "
              "Ask it in the chat first, and subscribe once it gets an answer.",
        "it": "Non so rispondere a “{question}” così com'è, quindi non avrei nulla da "
              "inviare. Falla prima in chat e iscriviti quando riceve una risposta.",
        "zh": "目前无法回答“{question}”，因此没有可发送的内容。"
              "请先在聊天中提问，得到回答后再订阅。",
    },
    "subscription_paused": {
        "en": "Subscription #{id} is paused: I can no longer read its question “{question}” "
              "(a name it uses has left the knowledge base). Make it again with /subscribe, "
              "or remove it with /unsubscribe {id}.",
        "it": "L'iscrizione #{id} è sospesa: non riesco più a leggere la sua domanda "
              "“{question}” (un nome che usa non è più nella base di conoscenza). Ricreala con "
              "/subscribe, o rimuovila con /unsubscribe {id}.",
        "zh": "订阅 #{id} 已暂停：无法再理解其问题“{question}”（其中的名称已不在知识库中）。"
              "可用 /subscribe 重新创建，或用 /unsubscribe {id} 删除。",
    },
}
