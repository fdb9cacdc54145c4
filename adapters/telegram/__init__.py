"""The Telegram adapter (python-telegram-bot v22): platform updates in, core requests out."""

from adapters.telegram.application import (
    ALLOWED_UPDATES,
    Limits,
    api_urls,
    build_application,
)
from adapters.telegram.services import TelegramServices

__all__ = ["ALLOWED_UPDATES", "Limits", "TelegramServices", "api_urls", "build_application"]
