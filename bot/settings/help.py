"""One line of help per setting, for `ricorda serve --help` (a test keeps it, the settings model
and .env.example in step: a new setting without a line here fails it)."""

from __future__ import annotations

HELP: dict[str, str] = {
    "data_dir": "folder holding all state (SQLite database, embedded Chroma, .env)",
    "database_url": "postgresql://user:pass@host/db for replicas; default SQLite in the data dir",
    "chroma_url": "http://host:8000 of a Chroma server; default embedded Chroma in the data dir",
    "log_level": "DEBUG (with tracebacks), INFO, WARNING or ERROR; default INFO for serve",
    "max_question_chars": "longest question accepted",
    "max_lookups": "fact lookups one question may make; past it the bot says how to narrow",
    "max_table_cells": "cells one table may have; past it the bot says how to narrow",
    "max_range_periods": "periods one range may span (2-24); a longer range is said too long",
    "max_answer_chars": "longest answer text (and stored turn); the rest is cut and said so",
    "max_messages_per_answer": (
        "chat messages one answer may take; a table too long goes as a CSV attachment"
    ),
    "conversation_ttl_minutes": (
        "minutes a follow-up ('and Italy?') may come after the last answered figure and still "
        "continue it; 0 turns follow-ups off"
    ),
    "reference_date": "answer as if today were YYYY-MM-DD (tests, demos)",
    "kb_check_interval_ms": (
        "how often a serving process checks for a re-ingest: 0 before every answer, N at most "
        "every N ms; default 0 on SQLite, 200 on PostgreSQL"
    ),
    "fact_query_max_rows": (
        "rows a declared SQL fact source may return; past it the source is not loaded and the "
        "figures loaded before stay"
    ),
    "fact_query_seconds": "seconds a declared SQL fact source's query may take; then stopped",
    "fact_refresh_minutes": (
        "serve reloads the declared SQL fact sources every N minutes; 0 = only at ingest"
    ),
    "l0_cosine_threshold": "L0 cache match threshold; default the embedder's calibrated value",
    "l1_cluster_threshold": "L1 autopath cluster threshold; default calibrated",
    "l1_floor_threshold": "L1 floor threshold; default calibrated",
    "retrieval_relevance_floor": (
        "best cosine a 'why' question needs to any snippet, else nothing was found; default "
        "the embedder's"
    ),
    "autopath_min_confirmations": "confirmations before an autopath serves",
    "anti_autopath_failures": "failures that block an autopath",
    "anti_autopath_days": "how long an anti-autopath stays in force",
    "aging_never_reused_days": "cache entries never reused are dropped after this",
    "aging_unused_days": "cache entries unused this long are dropped",
    "turn_retention_days": "turns (questions asked) older than this are removed nightly; 0 keeps",
    "aging_max_entries": "cache size kept by the nightly aging",
    "autopath_demoted_days": "a demoted autopath is removed after this",
    "autopath_idle_days": "an active autopath unused this long is removed",
    "promotion_min_entries": "entries before a promotion is proposed (tier 1)",
    "promotion_min_uses": "uses before a promotion is proposed",
    "promotion_min_age_days": "age before a promotion is proposed",
    "promotion_tier2": "approve promotions automatically, at most one a night",
    "promotion_tier2_min_entries": "tier 2: entries needed",
    "promotion_tier2_min_uses": "tier 2: uses needed",
    "promotion_tier2_nights": "tier 2: nights a proposal waits",
    "maintenance_time": "local time of the nightly maintenance, HH:MM",
    "maintenance_timezone": "IANA zone of the maintenance time; default the machine's",
    "timezone": "IANA zone of a chat's subscriptions until the chat sets its own (/timezone)",
    "max_subscriptions_per_chat": "subscriptions one chat may hold",
    "delivery_grace_minutes": "a delivery missed while no replica ran is still sent this late",
    "delivery_retries": "times a scheduled delivery is tried before it is recorded as failed",
    "embedder": "auto, use, bge-m3 or hashing (tests only)",
    "bge_model_path": "folder holding BAAI/bge-m3 (offline)",
    "llm": "none, llama-cpp or openai",
    "llm_model_path": "the .gguf file for llama-cpp",
    "llm_base_url": "OpenAI-compatible server URL for llm=openai",
    "llm_model": "model name sent to the OpenAI-compatible server",
    "llm_timeout_s": "seconds an LLM call may take",
    "llm_threads": "llama-cpp threads; default every core",
    "llm_api_key": "API key of the OpenAI-compatible server (secret)",
    "model_planner": "the LLM plans what the rules cannot read (docs/model-planner.md)",
    "model_planner_timeout_s": "seconds the planning model may take before the rules answer",
    "model_planner_max_tokens": "tokens the planning model may write (a reading is ~50)",
    "model_planner_slots": "model calls at once under serve; with none free, the rules answer",
    "admins": "admin users, telegram:123456789,slack:U0123",
    "telegram_token": "bot token from BotFather (secret)",
    "telegram_webhook_url": "https URL Telegram posts updates to; default long polling",
    "telegram_webhook_secret": "checked on every webhook request (secret; required with a URL)",
    "telegram_api_url": "Bot API server URL; default Telegram's",
    "telegram_webhook_listen": "address the webhook server listens on",
    "telegram_webhook_port": "port of the webhook server; default the URL's, else 8443",
    "slack_bot_token": "Bot User OAuth Token, xoxb-... (secret)",
    "slack_app_token": "app-level token, xapp-...: Socket Mode (secret)",
    "slack_signing_secret": "verifies /slack/events requests in HTTP mode (secret)",
    "slack_api_url": "Slack Web API URL; default Slack's",
    "slack_host": "address /slack/events listens on (HTTP mode)",
    "slack_port": "port of /slack/events (HTTP mode)",
    "teams_app_id": "Microsoft App ID of the Teams bot: turns Teams on",
    "teams_app_password": "client secret of that app (secret)",
    "teams_host": "address /api/messages listens on (Teams)",
    "teams_port": "port of /api/messages (Teams)",
    "teams_app_type": "single-tenant, multi-tenant or managed-identity (Azure Bot's type)",
    "teams_tenant_id": "Directory (tenant) ID of the bot's app registration (single-tenant)",
    "teams_login_url": "Entra login endpoint the bot token comes from; default Microsoft's",
    "teams_openid_url": "OpenID metadata that signs Teams' requests; default Bot Framework's",
    "mattermost_url": "the Mattermost server's URL: turns Mattermost on",
    "mattermost_token": "the Mattermost bot account's access token (secret)",
    "mattermost_team": "the Mattermost team (name) whose channels are answered",
    "mattermost_command_token": "token of the /ricorda slash command (secret)",
    "mattermost_host": "address button and slash-command callbacks listen on (Mattermost)",
    "mattermost_port": "port of those callbacks (Mattermost)",
    "mattermost_callback_url": "that listener's URL as the Mattermost server reaches it",
    "callback_secret": "signs option buttons; default derived from the bot token (secret)",
    "show_footer": "show the serving level and latency under chat answers (default off)",
    "charts": "send a chart image with a series, breakdown or ranking in chats (default on)",
    "inbox_lease_s": "seconds before a delivery left unanswered by a silent process is taken over",
    "metrics_host": "address of /healthz and /metrics",
    "metrics_port": "port of /healthz and /metrics (0: any free port)",
}


def settings_epilog() -> str:
    """Every setting, its variable and default, for `--help`."""
    from bot.settings.model import SECRET_FIELDS, Settings

    lines = ["Settings (environment, <data dir>/.env, ./.env, ricorda.toml):", ""]
    for name, info in Settings.model_fields.items():
        default = "" if info.default_factory or info.default is None else info.default
        if name in SECRET_FIELDS:
            default = ""
        shown = f" [{getattr(default, 'value', default)}]" if default not in ("", None) else ""
        lines.append(f"RICORDA_{name.upper()}{shown}: {HELP.get(name, '')}")
    return "\n\n".join(lines)
