"""Settings: environment > .env > TOML file > defaults in code (design.md section 6).

Secrets (bot tokens, signing secrets, API keys) are `SecretStr`: they print as `**********`
and are only read from the environment or `.env`, never from the TOML file.
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

from core.errors import ConfigError

SECRET_FIELDS = frozenset(
    {
        "telegram_token",
        "telegram_webhook_secret",
        "slack_bot_token",
        "slack_app_token",
        "slack_signing_secret",
        "llm_api_key",
        "callback_secret",
    }
)


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "ricorda"


def toml_files() -> list[Path]:
    """TOML settings files in increasing precedence: user config, then the working directory."""
    return [Path.home() / ".config" / "ricorda" / "ricorda.toml", Path.cwd() / "ricorda.toml"]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="RICORDA_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    database_url: str | None = None  # default: SQLite in the data dir
    chroma_url: str | None = None  # default: embedded Chroma in the data dir
    log_level: str = "WARNING"

    max_question_chars: int = 2000
    reference_date: str | None = None  # YYYY-MM-DD; default today

    # fast path (design.md sections 3-4); None = the embedder's own calibrated value
    l0_cosine_threshold: float | None = None
    l1_cluster_threshold: float | None = None
    l1_floor_threshold: float | None = None
    autopath_min_confirmations: int = 1
    anti_autopath_failures: int = 3
    anti_autopath_days: int = 30
    aging_never_reused_days: int = 14
    aging_unused_days: int = 30
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

    # models
    embedder: str = "auto"  # auto | use | bge-m3 | hashing
    bge_model_path: str | None = None
    llm: str = "none"  # none | llama-cpp | openai
    llm_model_path: str | None = None
    llm_base_url: str | None = None
    llm_model: str = "default"
    llm_timeout_s: float = 30.0
    llm_threads: int | None = None  # llama-cpp threads; default: every core
    llm_api_key: SecretStr | None = None

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
    callback_secret: SecretStr | None = None
    show_footer: bool = True
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
        self.data_dir.mkdir(parents=True, exist_ok=True)
        return self.data_dir


class _PublicToml(TomlConfigSettingsSource):
    """TOML source that ignores secrets: they belong in the environment, not a config file."""

    def __call__(self) -> dict[str, Any]:
        data = super().__call__()
        return {k: v for k, v in data.items() if k not in SECRET_FIELDS}


def load_settings(**overrides: Any) -> Settings:
    """Settings with CLI overrides (highest precedence); `data_dir` is expanded (~).

    A bad value is a ConfigError naming the variable; the value itself is not repeated (it
    may be a secret)."""
    clean = {k: v for k, v in overrides.items() if v is not None}
    try:
        settings = Settings(**clean)
    except ValidationError as exc:
        problems = "; ".join(
            f"RICORDA_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        raise ConfigError(f"bad setting: {problems}") from None
    settings.data_dir = Path(os.path.expanduser(str(settings.data_dir)))
    return settings
