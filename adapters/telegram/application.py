"""Build the python-telegram-bot `Application` for ricorda: handlers, rate limiter, Bot API
URL, error handler, command menu. Nothing runs until the caller starts it."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from telegram import BotCommand, BotCommandScopeChat, Update
from telegram.constants import UpdateType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    MessageReactionHandler,
    TypeHandler,
    filters,
)

from adapters.inbox import DeliveryInbox
from adapters.telegram.handlers import Handlers
from adapters.telegram.inbox import InboxProcessor, InboxQueue, redeliverer
from adapters.telegram.keyboards import HEADER
from adapters.telegram.robustness import Deduplicate, RetryingRateLimiter, on_error
from adapters.telegram.services import PLATFORM, TelegramServices
from adapters.telegram.words import public_menu
from core.catalog.lookup import LANGUAGES
from core.chat.admin_commands import COMMANDS as ADMIN_COMMANDS
from core.chat.admin_commands import description
from core.chat.subscribe_flow import COMMANDS as SUBSCRIPTION_COMMANDS

log = logging.getLogger("ricorda.telegram")

ALLOWED_UPDATES = (UpdateType.MESSAGE, UpdateType.CALLBACK_QUERY, UpdateType.MESSAGE_REACTION)
TELEGRAM_API = "https://api.telegram.org"
NEW_MESSAGE = filters.UpdateType.MESSAGE


@dataclass(frozen=True)
class Limits:
    """Telegram's flood limits by default; a self-hosted test server can lift them."""

    overall_per_second: float | None = 30
    group_per_minute: float | None = 20
    retries_after_flood: int = 3
    network_retries: int = 2
    concurrent_updates: int = 32  # updates in flight; core answers one at a time anyway
    connection_pool: int = 40  # httpx connections to the Bot API (its pool scans are O(n))


def api_urls(api_url: str | None) -> tuple[str, str]:
    """(base_url, base_file_url) for PTB from RICORDA_TELEGRAM_API_URL ("http://host:8081")."""
    root = (api_url or TELEGRAM_API).rstrip("/")
    if "{token}" in root or root.endswith("/bot"):
        base = root
        root = root.removesuffix("/bot{token}").removesuffix("/bot")
    else:
        base = f"{root}/bot"
    return base, f"{root}/file/bot"


def build_application(
    services: TelegramServices, *, token: str, api_url: str | None = None,
    limits: Limits | None = None,
) -> Application:
    limits = limits or Limits()
    base_url, file_url = api_urls(api_url)
    rate_limiter = RetryingRateLimiter(
        overall_max_rate=limits.overall_per_second or 0, overall_time_period=1,
        group_max_rate=limits.group_per_minute or 0, group_time_period=60,
        max_retries=limits.retries_after_flood, network_retries=limits.network_retries,
    )

    inbox = DeliveryInbox(services.inbox, PLATFORM) if services.inbox is not None else None
    queue = InboxQueue(inbox) if inbox is not None else None

    async def post_init(application: Application) -> None:
        if inbox is not None and queue is not None:
            inbox.start(redeliverer(queue, application.bot))  # takes over a dead run's updates
        await register_commands(application, services.admins)

    async def post_stop(application: Application) -> None:
        if inbox is not None:
            await inbox.stop()

    async def post_shutdown(application: Application) -> None:
        if inbox is not None:
            inbox.close()

    builder = (
        ApplicationBuilder()
        .token(token)
        .base_url(base_url)
        .base_file_url(file_url)
        .rate_limiter(rate_limiter)
        .connection_pool_size(limits.connection_pool)
        .post_init(post_init)
        .post_stop(post_stop)
        .post_shutdown(post_shutdown)
        .job_queue(None)
    )
    if inbox is not None and queue is not None:
        builder = builder.update_queue(queue).concurrent_updates(
            InboxProcessor(inbox, limits.concurrent_updates))
    else:
        builder = builder.concurrent_updates(limits.concurrent_updates)
    application = builder.build()
    add_handlers(application, services)
    return application


def add_handlers(application: Application, services: TelegramServices) -> None:
    """Order matters inside group 0: the first handler that applies takes the update."""
    handlers = Handlers(services)
    if services.inbox is None:  # else the inbox claimed each update as it was stored
        application.add_handler(TypeHandler(Update, Deduplicate(services)), group=-1)
    application.add_handlers([
        # new messages only: an edit never runs a command (CommandHandler takes edits too)
        CommandHandler(["start", "help", "ask", *ADMIN_COMMANDS, *SUBSCRIPTION_COMMANDS],
                       handlers.on_command,
                       filters=NEW_MESSAGE),
        CallbackQueryHandler(handlers.on_header, pattern=f"^{HEADER}:"),
        CallbackQueryHandler(handlers.on_tap),  # options, purge prompts; others: "expired"
        MessageReactionHandler(handlers.on_reaction),
        MessageHandler(filters.UpdateType.MESSAGE & filters.TEXT & ~filters.COMMAND,
                       handlers.on_text),
        MessageHandler(filters.UpdateType.MESSAGE & ~filters.TEXT & ~filters.StatusUpdate.ALL,
                       handlers.on_non_text),
    ])
    application.add_error_handler(on_error)


def _menus(admin: bool) -> list[tuple[str | None, list[BotCommand]]]:
    """(Telegram language code, menu) per language the bot speaks; English is the default
    menu (no code), shown to users of any other language too."""
    out = []
    for language in LANGUAGES:
        menu = [BotCommand(name, text) for name, text in public_menu(language)]
        if admin:
            menu += [BotCommand(name, description(name, language)) for name in ADMIN_COMMANDS]
        out.append((None if language == "en" else language, menu))
    return out


async def register_commands(application: Application, admins: frozenset[str]) -> None:
    """The menu everyone sees, plus the admin commands in each admin's private chat, each in
    the languages the bot speaks (Telegram picks the one of the user's app)."""
    bot = application.bot
    for code, menu in _menus(admin=False):
        await bot.set_my_commands(menu, language_code=code)
    for admin in sorted(admins):
        platform, _, user_id = admin.partition(":")
        if platform != PLATFORM or not user_id.lstrip("-").isdigit():
            continue
        try:
            for code, menu in _menus(admin=True):
                await bot.set_my_commands(menu, scope=BotCommandScopeChat(int(user_id)),
                                          language_code=code)
        except TelegramError as exc:  # the admin has not opened a chat with the bot yet
            log.info("admin menu for %s not set: %s", admin, exc.__class__.__name__)
