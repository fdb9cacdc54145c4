"""Every setting checked before anything opens or connects, each problem one sentence with its fix.

A deployer reads one line, `error: RICORDA_X ...: <what to do>`, never a traceback. The value is
repeated only for settings that are not secrets; a token's shape is checked here, locally, so a
pasted chat message or a truncated token never reaches Telegram or Slack.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import zoneinfo
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bot.settings.choices import TEAMS_APP_TYPES, LlmChoice
from bot.settings.errors import PORTS, env_name
from bot.settings.model import Settings
from core.contracts.errors import ConfigError

# what the platforms issue; checked before any network call (the value is never printed)
TELEGRAM_TOKEN = re.compile(r"^\d{3,20}:[A-Za-z0-9_-]{30,}$")
SLACK_BOT_TOKEN = re.compile(r"^xoxb-[A-Za-z0-9-]+$")
SLACK_APP_TOKEN = re.compile(r"^xapp-[A-Za-z0-9-]+$")
DATABASE_SCHEMES = ("sqlite", "postgresql", "postgresql+psycopg", "postgres")
HHMM = re.compile(r"^([01]?\d|2[0-3]):[0-5]\d$")
ADMIN = re.compile(r"^(telegram|slack|teams|mattermost|console):\S+$")
WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")  # what Telegram accepts as secret_token
# how often a serving process reads the knowledge-base version by default, in ms (0: every
# answer): SQLite's read is ~0.005 ms, PostgreSQL's a round trip (Settings.kb_check_interval_ms)
KB_CHECK_MS = {"sqlite": 0, "postgresql": 200}


@dataclass(frozen=True)
class CheckedSettings:
    """Settings that passed every check, with what the checks derived from them (parsed
    once, here, rather than again wherever they are used)."""

    settings: Settings
    reference_date: dt.date | None  # None: today
    maintenance_at: dt.time
    maintenance_tz: dt.tzinfo | None  # None: the machine's
    kb_check_interval_s: float
    inbox_lease: dt.timedelta
    slack_mode: str | None  # "socket", "http", or None when Slack is off

def _bad(field: str, problem: str, fix: str) -> ConfigError:
    """`RICORDA_X=value is wrong: how to fix it` (`problem` may start with `=value`)."""
    space = "" if problem.startswith("=") else " "
    return ConfigError(f"{env_name(field)}{space}{problem}: {fix}")


def _http_url(field: str, value: str | None, *, https: bool = False) -> None:
    if value is None:
        return
    parts = urlsplit(value)
    schemes = ("https",) if https else ("http", "https")
    try:
        parts.port  # noqa: B018  (raises on a port that is not a number)
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in schemes or not parts.hostname:
        example = "https://bot.example.com/telegram" if https else "http://127.0.0.1:8000"
        raise _bad(field, f"={value[:80]!r} is not an {'/'.join(schemes)} URL",
                   f"set it to a full URL such as {example}")


def _port(field: str, value: int | None) -> None:
    if value is not None and not 0 <= value <= 65535:
        raise _bad(field, f"={value} is not a port", "set it to a number from 1 to 65535")


def check_settings(s: Settings) -> CheckedSettings:
    """ConfigError for the first setting that cannot work; run once by every command
    (bot.wiring.build.build_app, `ricorda migrate`), before anything opens or connects."""
    reference, at, tz = _check_storage(s)
    _check_models(s)
    slack_mode = _check_platforms(s)
    _check_numbers(s)
    return CheckedSettings(
        settings=s,
        reference_date=reference,
        maintenance_at=at,
        maintenance_tz=tz,
        kb_check_interval_s=kb_check_interval_ms(s) / 1000,
        inbox_lease=dt.timedelta(seconds=s.inbox_lease_s),
        slack_mode=slack_mode,
    )


def kb_check_interval_ms(s: Settings) -> int:
    """How often a serving process reads the knowledge-base version (0: every answer)."""
    if s.kb_check_interval_ms is not None:
        return s.kb_check_interval_ms
    dialect = "sqlite" if s.database.startswith("sqlite") else "postgresql"
    return KB_CHECK_MS[dialect]


def _check_storage(s: Settings) -> tuple[dt.date | None, dt.time, dt.tzinfo | None]:
    if s.database_url is not None:
        scheme = s.database_url.split("://", 1)[0].lower() if "://" in s.database_url else ""
        if scheme not in DATABASE_SCHEMES:
            shown = scheme or "a value that is not a URL"
            raise _bad("database_url", f"uses {shown}, which ricorda does not support",
                       "use postgresql://user@host:5432/db, or unset it for SQLite in the data dir")
    _http_url("chroma_url", s.chroma_url)
    reference = None
    if s.reference_date is not None:
        try:
            reference = dt.date.fromisoformat(s.reference_date)
        except ValueError:
            raise _bad("reference_date", f"={s.reference_date!r} is not a date",
                       "write it as YYYY-MM-DD, or unset it for today") from None
    if not HHMM.match(s.maintenance_time):
        raise _bad("maintenance_time", f"={s.maintenance_time!r} is not a time of day",
                   "write it as HH:MM, e.g. 03:30")
    hours, minutes = s.maintenance_time.split(":")
    tz = None
    if s.maintenance_timezone:
        try:
            tz = zoneinfo.ZoneInfo(s.maintenance_timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise _bad(
                "maintenance_timezone", f"={s.maintenance_timezone!r} is not a time zone",
                "use an IANA name such as Europe/Rome, or unset it for the machine's",
            ) from None
    try:
        zoneinfo.ZoneInfo(s.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise _bad("timezone", f"={s.timezone!r} is not a time zone",
                   "use an IANA name such as Europe/Rome, or unset it for UTC") from None
    return reference, dt.time(int(hours), int(minutes)), tz


def _check_models(s: Settings) -> None:
    if s.llm == LlmChoice.LLAMA_CPP and not s.llm_model_path:
        raise _bad("llm_model_path", "is not set but RICORDA_LLM=llama-cpp needs it",
                   "set it to the path of a .gguf model file")
    if s.llm == LlmChoice.LLAMA_CPP and s.llm_model_path and not Path(
        os.path.expanduser(s.llm_model_path)
    ).is_file():
        raise _bad("llm_model_path", f"={s.llm_model_path!r} is not a file",
                   "set it to the path of a .gguf model file")
    if s.llm == LlmChoice.OPENAI and not s.llm_base_url:
        raise _bad("llm_base_url", "is not set but RICORDA_LLM=openai needs it",
                   "set it to the server's URL, e.g. http://127.0.0.1:8080")
    _http_url("llm_base_url", s.llm_base_url)
    if s.model_planner and s.llm == LlmChoice.NONE:
        raise _bad("model_planner", "is on but RICORDA_LLM=none: there is no model to plan with",
                   "set RICORDA_LLM to llama-cpp or openai, or RICORDA_MODEL_PLANNER=false")
    if s.model_planner_timeout_s <= 0 or s.model_planner_max_tokens < 16:
        raise _bad("model_planner_timeout_s", "or RICORDA_MODEL_PLANNER_MAX_TOKENS is too small",
                   "use a timeout above 0 s and at least 16 tokens (default 20 s, 160)")
    if s.model_planner_slots < 1:
        raise _bad("model_planner_slots", f"={s.model_planner_slots} is below 1",
                   "set it to the number of model calls that may run at once, e.g. 2")
    if s.llm_timeout_s <= 0:
        raise _bad("llm_timeout_s", f"={s.llm_timeout_s} is not positive",
                   "set it to a number of seconds such as 30")
    if s.llm_threads is not None and s.llm_threads < 1:
        raise _bad("llm_threads", f"={s.llm_threads} is below 1",
                   "set it to a number of threads, or unset it for every core")
    if s.bge_model_path and not Path(os.path.expanduser(s.bge_model_path)).exists():
        raise _bad("bge_model_path", f"={s.bge_model_path!r} does not exist",
                   "set it to the folder holding BAAI/bge-m3, or unset it")


def _secret(s: Settings, field: str) -> str | None:
    value = getattr(s, field)
    return None if value is None else value.get_secret_value()


def _check_platforms(s: Settings) -> str | None:
    token = _secret(s, "telegram_token")
    if token is not None and not TELEGRAM_TOKEN.match(token):
        raise _bad("telegram_token", "does not look like a Telegram bot token",
                   "paste the whole token BotFather gave you (digits, a colon, 35 characters)")
    bot = _secret(s, "slack_bot_token")
    if bot is not None and not SLACK_BOT_TOKEN.match(bot):
        raise _bad("slack_bot_token", "is not a Slack bot token",
                   "use the Bot User OAuth Token (xoxb-...) from the app's OAuth page")
    app = _secret(s, "slack_app_token")
    if app is not None and not SLACK_APP_TOKEN.match(app):
        raise _bad("slack_app_token", "must be an app-level token (xapp-...)",
                   "create one with the connections:write scope under Basic Information")
    signing = _secret(s, "slack_signing_secret")
    if signing and re.search(r"\s", signing):
        raise _bad("slack_signing_secret", "contains spaces",
                   "paste the Signing Secret from the app's Basic Information page")
    # Telegram delivers only to https; a self-hosted Bot API server (local mode) also to http
    _http_url("telegram_webhook_url", s.telegram_webhook_url, https=not s.telegram_api_url)
    _http_url("telegram_api_url", s.telegram_api_url)
    _http_url("slack_api_url", s.slack_api_url)
    _http_url("teams_login_url", s.teams_login_url, https=True)
    _http_url("teams_openid_url", s.teams_openid_url)
    _http_url("mattermost_url", s.mattermost_url)
    _http_url("mattermost_callback_url", s.mattermost_callback_url)
    for field in PORTS:
        _port(field, getattr(s, field))
    for admin in s.admins:
        if not ADMIN.match(admin):
            raise _bad("admins", f"has {admin[:40]!r}, which is not platform:id",
                       "list them as telegram:123456789,slack:U0123")
    hook_secret = _secret(s, "telegram_webhook_secret") or ""
    if s.telegram_webhook_url and not WEBHOOK_SECRET.match(hook_secret):
        raise ConfigError(
            "RICORDA_TELEGRAM_WEBHOOK_SECRET must be set (1-256 characters "
            "A-Z a-z 0-9 _ -) when RICORDA_TELEGRAM_WEBHOOK_URL is set"
        )
    if s.teams_app_id:
        _teams_identity(s)
    if s.mattermost_url and not (_secret(s, "mattermost_token") and s.mattermost_team):
        raise ConfigError("RICORDA_MATTERMOST_TOKEN and RICORDA_MATTERMOST_TEAM are required "
                          "with RICORDA_MATTERMOST_URL: the bot account's access token and the "
                          "team's name (docs/mattermost.md)")
    return _slack_mode(s, bot, app, signing)


def _teams_identity(s: Settings) -> None:
    """What each kind of Azure bot needs to get its token (adapters/teams/connector.py)."""
    kind = teams_app_type(s)
    if kind not in TEAMS_APP_TYPES:
        raise _bad("teams_app_type", f"={kind[:40]!r} is not a kind of Azure bot",
                   "use " + ", ".join(TEAMS_APP_TYPES) + " (the bot's Type on its Azure page)")
    if kind == "single-tenant" and not s.teams_tenant_id:
        raise ConfigError("RICORDA_TEAMS_TENANT_ID is required for a single-tenant bot: the "
                          "Directory (tenant) ID on the app registration's Overview page")
    if kind == "managed-identity" and not _secret(s, "callback_secret"):
        raise ConfigError("RICORDA_CALLBACK_SECRET is required for a managed-identity Teams "
                          "bot (no client secret to sign its buttons with): a long random "
                          "string, e.g. from `openssl rand -hex 32`")
    if kind != "managed-identity" and not _secret(s, "teams_app_password"):
        raise ConfigError("RICORDA_TEAMS_APP_PASSWORD is required with RICORDA_TEAMS_APP_ID: "
                          "the client secret of the bot's app registration")


def teams_app_type(s: Settings) -> str:
    """The setting, else single-tenant when a tenant id is given, else multi-tenant."""
    return (s.teams_app_type or ("single-tenant" if s.teams_tenant_id else "multi-tenant")
            ).strip().lower()


def _slack_mode(s: Settings, bot: str | None, app: str | None, signing: str | None) -> str | None:
    """Socket Mode with an app-level token; else HTTP mode, which needs the signing secret
    (every request is checked against it)."""
    if bot is None:
        return None
    if app is not None:
        return "socket"
    if not signing:
        raise ConfigError(
            "RICORDA_SLACK_SIGNING_SECRET is required in HTTP mode "
            "(or set RICORDA_SLACK_APP_TOKEN for Socket Mode)"
        )
    return "http"


def _check_numbers(s: Settings) -> None:
    if not s.inbox_lease_s > 0:
        raise _bad("inbox_lease_s", f"={s.inbox_lease_s!r} is not positive",
                   "set it to the seconds after which another process takes a delivery over, "
                   "e.g. 30")
    if s.kb_check_interval_ms is not None and s.kb_check_interval_ms < 0:
        raise _bad("kb_check_interval_ms", f"={s.kb_check_interval_ms} is negative",
                   "set it to 0 (check before every answer) or more, or unset it")
    if s.max_question_chars < 1:
        raise _bad("max_question_chars", f"={s.max_question_chars} is below 1",
                   "set it to the longest question to accept, e.g. 2000")
    if not 0 <= s.conversation_ttl_minutes <= 7 * 24 * 60:
        raise _bad("conversation_ttl_minutes", f"={s.conversation_ttl_minutes} is out of range",
                   "set it to minutes between 0 (follow-ups off) and 10080 (a week), e.g. 30")
    for field in ("l0_cosine_threshold", "l1_cluster_threshold", "l1_floor_threshold"):
        value = getattr(s, field)
        if value is not None and not -1.0 <= value <= 1.0:
            raise _bad(field, f"={value} is not a cosine", "set it between -1 and 1, or unset it")
    for field, info in type(s).model_fields.items():
        value = getattr(s, field)
        if (field.endswith(("_days", "_entries", "_uses", "_nights", "_confirmations", "_failures"))
                and info.annotation is int and value < 0):
            raise _bad(field, f"={value} is negative", "set it to 0 or more")
