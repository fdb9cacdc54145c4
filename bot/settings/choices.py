"""The fixed choices of the settings and which settings are secret: shared by the settings model
(bot.settings.model) and its checks (bot.settings.checks), which import this and not each other."""

from __future__ import annotations

from enum import StrEnum

SECRET_FIELDS = frozenset(
    {
        "telegram_token",
        "telegram_webhook_secret",
        "slack_bot_token",
        "slack_app_token",
        "slack_signing_secret",
        "teams_app_password",
        "mattermost_token",
        "mattermost_command_token",
        "llm_api_key",
        "callback_secret",
    }
)


class LogLevel(StrEnum):
    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class EmbedderChoice(StrEnum):
    AUTO = "auto"
    USE = "use"
    BGE_M3 = "bge-m3"
    HASHING = "hashing"


class LlmChoice(StrEnum):
    NONE = "none"
    LLAMA_CPP = "llama-cpp"
    OPENAI = "openai"


# the kinds of Azure bot (adapters.teams.connector, which bot/ imports only to serve Teams)
TEAMS_APP_TYPES = ("single-tenant", "multi-tenant", "managed-identity")
