"""Settings: environment > <data dir>/.env > ./.env > TOML file > defaults (docs/configuration.md).

Secrets (bot tokens, signing secrets, API keys) are `SecretStr`: they print as `**********`
and are only read from the environment or a `.env`, never from the TOML file. A value of the
wrong type is a ConfigError here; every other check runs once, before anything opens or
connects (bot/settings/checks.py, called by bot.wiring.build). Either names the variable and says
how to fix it; the value of a secret is never repeated.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from bot.settings.choices import SECRET_FIELDS, EmbedderChoice, LlmChoice, LogLevel
from bot.settings.errors import create_private_file, describe_errors, ensure_writable_dir
from core.contracts.errors import ConfigError

__all__ = [
    "SECRET_FIELDS", "EmbedderChoice", "LlmChoice", "LogLevel", "Settings", "load_settings",
]


# spellings accepted before this became an enum
_ALIASES = {
    "embedder": {"offline": "use", "bge": "bge-m3"},
    "llm": {"": "none", "off": "none", "llama_cpp": "llama-cpp", "llamacpp": "llama-cpp",
            "http": "openai"},
}  # fmt: skip


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "ricorda"


def toml_files() -> list[Path]:
    """TOML settings files in increasing precedence: user config, then the working directory."""
    return [Path.home() / ".config" / "ricorda" / "ricorda.toml", Path.cwd() / "ricorda.toml"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RICORDA_", env_file=".env", env_file_encoding="utf-8", extra="ignore",
        env_ignore_empty=True,  # `RICORDA_X=` (as in .env.example) means "not set"
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    database_url: str | None = None  # default: SQLite in the data dir
    chroma_url: str | None = None  # default: embedded Chroma in the data dir
    log_level: LogLevel | None = None  # default: INFO for `serve`, WARNING for the rest

    max_question_chars: int = 2000
    # bounded work per question (core.planning.bounds, docs/disclosure.md): past a bound the
    # answer says what was left out and how to narrow
    max_lookups: int = Field(default=200, ge=1)  # fact lookups per question
    max_table_cells: int = Field(default=400, ge=1)  # cells of one table
    max_range_periods: int = Field(default=24, ge=2, le=24)  # periods in one range
    max_answer_chars: int = Field(default=12_000, ge=500)  # an answer's text (and its turn)
    max_messages_per_answer: int = Field(default=4, ge=1)  # chat messages for one answer
    reference_date: str | None = None  # YYYY-MM-DD; default today
    # how often a serving process reads the knowledge-base version: 0 = before every answer,
    # N = at most every N ms; None = 0 on SQLite (a local read, ~0.01 ms), 200 on PostgreSQL
    # (a network round trip, ~0.4 ms: too much to add to every 0.2 ms structured answer)
    kb_check_interval_ms: int | None = None
    # declared fact sources (`[[facts]]`, docs/own-data.md): a query's bounds, and how often
    # `serve` reloads the SQL ones (0: only at `ricorda ingest`)
    fact_query_max_rows: int = Field(default=1_000_000, ge=1)
    fact_query_seconds: float = Field(default=60.0, gt=0)
    fact_refresh_minutes: float = Field(default=0.0, ge=0)
    # how long a conversation's context lives: a follow-up ("and Italy?") this many minutes
    # after the last answered figure still continues it; 0 turns follow-ups off
    conversation_ttl_minutes: float = 30.0

    # fast path (docs/fast-path.md); None = the embedder's own calibrated value
    l0_cosine_threshold: float | None = None
    l1_cluster_threshold: float | None = None
    l1_floor_threshold: float | None = None
    retrieval_relevance_floor: float | None = None  # None: the embedder's floor
    autopath_min_confirmations: int = 1
    anti_autopath_failures: int = 3
    anti_autopath_days: int = 30
    aging_never_reused_days: int = 14
    aging_unused_days: int = 30
    turn_retention_days: int = Field(default=180, ge=0)  # nightly; 0 = keep every turn
    aging_max_entries: int = 500
    autopath_demoted_days: int = 30  # a demoted autopath is removed after this
    autopath_idle_days: int = 90  # an active autopath unused this long is removed
    promotion_min_entries: int = 3  # tier 1: a proposal an admin approves
    promotion_min_uses: int = 15
    promotion_min_age_days: int = 30
    promotion_tier2: bool = False  # tier 2: approved automatically, at most one per night
    promotion_tier2_min_entries: int = 5
    promotion_tier2_min_uses: int = 50
    promotion_tier2_nights: int = 3
    maintenance_time: str = "03:30"  # local time of the nightly job, HH:MM
    maintenance_timezone: str | None = None  # IANA zone; default the machine's
    # subscriptions (docs/alerts.md): a chat's zone until it sets its own (/timezone), how many
    # subscriptions one chat may hold, how late a missed delivery is still sent (with a note)
    timezone: str = "UTC"  # IANA zone
    max_subscriptions_per_chat: int = Field(default=20, ge=1, le=1000)
    delivery_grace_minutes: float = Field(default=120.0, ge=0)
    delivery_retries: int = Field(default=5, ge=1, le=20)  # sends tried before "failed"

    # models
    embedder: EmbedderChoice = EmbedderChoice.AUTO
    bge_model_path: str | None = None
    llm: LlmChoice = LlmChoice.NONE
    llm_model_path: str | None = None
    llm_base_url: str | None = None
    llm_model: str = "default"
    llm_timeout_s: float = 30.0
    llm_threads: int | None = None  # llama-cpp threads; default: every core
    llm_api_key: SecretStr | None = None
    # the model planner (docs/model-planner.md): the configured LLM plans what the rules
    # cannot read; off by default, so the default install answers as before
    model_planner: bool = False
    model_planner_timeout_s: float = 20.0
    model_planner_max_tokens: int = 160
    model_planner_slots: int = 2  # model calls in flight at once under serve (core_lock.py)

    # platforms
    admins: Annotated[list[str], NoDecode] = Field(default_factory=list)  # "telegram:1,slack:U2"
    telegram_token: SecretStr | None = None
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: SecretStr | None = None
    telegram_api_url: str | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int | None = None  # default: the webhook URL's port, else 8443
    slack_bot_token: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_api_url: str | None = None
    slack_host: str = "0.0.0.0"  # where /slack/events listens (HTTP mode)
    slack_port: int = 3000
    teams_app_id: str | None = None  # Microsoft App ID of the Teams bot (docs/teams.md)
    teams_app_password: SecretStr | None = None
    teams_host: str = "0.0.0.0"  # where /api/messages listens
    teams_port: int = 3978
    # single-tenant | multi-tenant | managed-identity; unset: single-tenant when a tenant id
    # is set, else multi-tenant (how deployments before the setting ran)
    teams_app_type: str | None = None
    teams_tenant_id: str | None = None  # the Directory (tenant) ID of the app registration
    teams_login_url: str | None = None  # default Microsoft's (tests: a local fake tenant)
    teams_openid_url: str | None = None  # default the Bot Framework's OpenID metadata
    mattermost_url: str | None = None  # the Mattermost server (docs/mattermost.md)
    mattermost_token: SecretStr | None = None  # the bot account's access token
    mattermost_team: str | None = None  # the team whose channels are answered (DMs: any)
    mattermost_command_token: SecretStr | None = None  # the /ricorda slash command's token
    mattermost_host: str = "0.0.0.0"  # where button and slash-command callbacks listen
    mattermost_port: int = 3979
    mattermost_callback_url: str | None = None  # that listener as the server reaches it
    callback_secret: SecretStr | None = None
    show_footer: bool = False  # serving level and latency under answers: for admins testing
    charts: bool = True  # a series, breakdown or ranking also comes as a chart image
    inbox_lease_s: float = 30.0  # an unanswered delivery whose process went silent this long
    # is taken over by another process (or this one after a restart)
    metrics_host: str = "127.0.0.1"  # GET /healthz and /metrics (Prometheus)
    metrics_port: int = 9108

    @field_validator("admins", mode="before")
    @classmethod
    def _split_admins(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("log_level", "embedder", "llm", mode="before")
    @classmethod
    def _choice(cls, value: Any, info: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            value = value.upper() if info.field_name == "log_level" else value.lower()
            return _ALIASES.get(info.field_name, {}).get(value, value) or None
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = _PublicToml(settings_cls, toml_file=[p for p in toml_files() if p.is_file()])
        return (init_settings, env_settings, dotenv_settings, toml, file_secret_settings)

    @property
    def database(self) -> str:
        from storage.db import sqlite_url

        return self.database_url or sqlite_url(self.data_dir)

    def ensure_data_dir(self) -> Path:
        """The data dir, created if missing; a ConfigError with the fix when it cannot be."""
        path = ensure_writable_dir(self.data_dir)
        if not self.database_url:
            create_private_file(path / "ricorda.db")  # 0600: not for every local user
        return path


class _PublicToml(TomlConfigSettingsSource):
    """TOML source that ignores secrets: they belong in the environment, not a config file."""

    def __call__(self) -> dict[str, Any]:
        data = super().__call__()
        return {k: v for k, v in data.items() if k not in SECRET_FIELDS}


def env_files(data_dir: Path | None) -> tuple[Path, ...]:
    """The `.env` files read, in increasing precedence: the working directory's, then the data
    dir's (a deployment keeps its tokens beside its data; a developer's checkout may hold
    another). The environment itself overrides both."""
    files = [Path.cwd() / ".env"]
    if data_dir is not None:
        files.append(Path(os.path.expanduser(str(data_dir))) / ".env")
    return tuple(dict.fromkeys(files))


def _data_dir_before_settings(override: Any) -> Path:
    """Where the data dir's .env is: --data-dir, else RICORDA_DATA_DIR from the environment or
    the working directory's .env, else the default."""
    if override is not None:
        return Path(str(override))
    if os.environ.get("RICORDA_DATA_DIR"):
        return Path(os.environ["RICORDA_DATA_DIR"])
    cwd_env = Path.cwd() / ".env"
    if cwd_env.is_file():
        from dotenv import dotenv_values

        value = dotenv_values(cwd_env).get("RICORDA_DATA_DIR")
        if value:
            return Path(value)
    return default_data_dir()


def load_settings(**overrides: Any) -> Settings:
    """Settings with CLI overrides (highest precedence); `data_dir` is expanded (~).

    A bad value is a ConfigError naming the variable and the fix; the value itself is only
    repeated when it is not a secret."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    files = env_files(_data_dir_before_settings(clean.get("data_dir")))
    try:
        settings = Settings(_env_file=files, **clean)  # type: ignore[call-arg]
    except ValidationError as exc:
        raise ConfigError(describe_errors(exc, clean, model=Settings)) from None
    settings.data_dir = Path(os.path.expanduser(str(settings.data_dir)))
    return settings
