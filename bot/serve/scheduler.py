"""The subscription scheduler inside `ricorda serve` (docs/alerts.md).

Every replica runs it, on its own thread and event loop: every `TICK_S` it plans what is due and
sends what it can claim (core.scheduled.deliveries), the database deciding which replica
sends each delivery (storage/subscription_store.py), so each goes once whatever the number of
replicas. It writes to the platforms this process serves, each through that platform's own
reply port (a Telegram chat is written to with the Bot API, as a reply would be).

Its clock is bot.wiring.clock's (a test's controllable one under RICORDA_TEST_CLOCK_FILE).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import socket
import threading
import uuid
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.wiring.build import App
    from core.scheduled.deliveries import Target

log = logging.getLogger("ricorda.subscriptions")

TICK_S = 1.0  # two indexed queries a second per replica: due subscriptions, claimable sends


@contextlib.asynccontextmanager
async def telegram_target(app: App, worker: Executor) -> AsyncIterator[Target]:
    """Telegram chats written to with the Bot API, through the adapter's own port."""
    from telegram import Bot

    from adapters.charts import chart_for
    from adapters.telegram import api_urls
    from adapters.telegram.port import TelegramPort
    from bot.serve.telegram import telegram_services
    from core.chat.chat_turn import ChatTurns
    from core.scheduled.deliveries import Target

    s = app.settings
    assert s.telegram_token is not None
    services = telegram_services(app, core_worker=worker)
    base_url, file_url = api_urls(s.telegram_api_url)
    async with Bot(s.telegram_token.get_secret_value(), base_url=base_url,
                   base_file_url=file_url) as bot:
        turns = ChatTurns(services, "telegram",
                          draw=lambda answer: chart_for(answer, services.chart))
        yield Target(turns, lambda chat: TelegramPort(services, bot,
                                                     int(chat.partition(":")[2])))


@contextlib.asynccontextmanager
async def slack_target(app: App, worker: Executor) -> AsyncIterator[Target]:
    """Slack channels written to with the Web API, through the adapter's own port (a post in
    the channel, not a thread)."""
    import aiohttp

    from adapters.charts import chart_for
    from adapters.slack import web_client
    from adapters.slack.questions import SlackPort
    from bot.serve.slack import slack_services
    from core.chat.chat_turn import ChatTurns
    from core.scheduled.deliveries import Target

    s = app.settings
    assert s.slack_bot_token is not None
    services = slack_services(app, core_worker=worker)
    async with aiohttp.ClientSession() as session:
        client = web_client(s.slack_bot_token.get_secret_value(), base_url=s.slack_api_url,
                            session=session)
        turns = ChatTurns(services, "slack", draw=lambda answer: chart_for(answer, services.chart))
        yield Target(turns, lambda chat: SlackPort(services, client, chat.partition(":")[2], ""))


@contextlib.asynccontextmanager
async def mattermost_target(app: App, worker: Executor) -> AsyncIterator[Target]:
    """Mattermost channels written to with its REST API, through the adapter's own port."""
    from adapters.charts import chart_for
    from adapters.mattermost.app import MattermostBot, MattermostPort
    from adapters.mattermost.endpoint import ACTIONS_PATH
    from bot.serve.mattermost import _who
    from bot.wiring.chat import chat_services
    from core.chat.chat_ports import ChatServices
    from core.chat.chat_turn import ChatTurns
    from core.scheduled.deliveries import Target

    s = app.settings
    assert s.mattermost_token is not None
    client, team = await _who(app)
    try:
        services = chat_services(app, s.mattermost_token.get_secret_value(), ChatServices,
                                 core_worker=worker)
        base = (s.mattermost_callback_url or f"http://localhost:{s.mattermost_port}").rstrip("/")
        bot = MattermostBot(services, client, actions_url=base + ACTIONS_PATH, team_id=team)
        turns = ChatTurns(services, "mattermost",
                          draw=lambda answer: chart_for(answer, services.chart))
        yield Target(turns, lambda chat: MattermostPort(bot, chat.partition(":")[2], ""))
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def teams_target(app: App, worker: Executor) -> AsyncIterator[Target]:
    """Teams conversations written to through the Bot Connector at the service URL the chat
    came from when it subscribed (a bot cannot write first anywhere else)."""
    from adapters.charts import chart_for
    from adapters.teams import TeamsBot
    from adapters.teams.application import TeamsPort
    from adapters.teams.connector import Connector
    from bot.serve.teams import _token, teams_services
    from core.chat.chat_turn import ChatTurns
    from core.scheduled.deliveries import Target
    from storage.subscription_store import SqlSubscriptionStore

    services = teams_services(app, core_worker=worker)
    bot = TeamsBot(services, Connector(_token(app)))
    store = SqlSubscriptionStore(app.storage.engine)

    def port_for(chat: str) -> TeamsPort:
        service_url = store.chat_reference(chat)
        if not service_url:
            raise LookupError("no service URL remembered for this conversation")
        return TeamsPort(bot, {"serviceUrl": service_url,
                               "conversation": {"id": chat.partition(":")[2]}})

    yield Target(ChatTurns(services, "teams",
                           draw=lambda answer: chart_for(answer, services.chart)), port_for)


TARGETS = {"telegram": telegram_target, "slack": slack_target,
           "mattermost": mattermost_target, "teams": teams_target}


async def run_scheduler(app: App, worker: Executor, platforms: Sequence[str], *,
                        stop: asyncio.Event | None = None) -> None:
    """Tick until `stop` (or forever); a failing tick is logged and the next one comes."""
    from bot.wiring.alerts import alert_evaluator, facts_version
    from bot.wiring.clock import delivery_clock
    from bot.wiring.log_setup import redact_known
    from core.scheduled.alert_watch import AlertWatch
    from core.scheduled.deliveries import Deliverer, DeliveryPolicy
    from storage.subscription_store import SqlSubscriptionStore

    s = app.settings
    owner = f"{socket.gethostname()[:40]}-{uuid.uuid4().hex[:8]}"
    async with contextlib.AsyncExitStack() as stack:
        targets = {name: await stack.enter_async_context(TARGETS[name](app, worker))
                   for name in platforms if name in TARGETS}
        if not targets:
            return
        deliverer = Deliverer(
            SqlSubscriptionStore(app.storage.engine), targets, now=delivery_clock(),
            owner=owner, policy=DeliveryPolicy(
                grace=dt.timedelta(minutes=s.delivery_grace_minutes),
                retries=s.delivery_retries),
            observe=app.core.metrics.observe_delivery, redact=redact_known)
        watch = AlertWatch(deliverer.store, targets, evaluate=alert_evaluator(app),
                           version=facts_version(app), observe=app.core.metrics.observe_delivery)
        log.info("subscriptions: delivering to %s as %s", ", ".join(targets), owner)
        while stop is None or not stop.is_set():
            for job in (deliverer, watch):
                try:
                    await job.tick()
                except Exception as exc:  # a database hiccup must not end the deliveries
                    log.warning("subscription tick failed: %s", exc.__class__.__name__)
            await asyncio.sleep(TICK_S)


def start_scheduler(app: App, worker: Executor, platforms: Sequence[str]) -> threading.Thread:
    """Run the scheduler on a daemon thread of its own (ends with the process)."""
    thread = threading.Thread(target=lambda: asyncio.run(run_scheduler(app, worker, platforms)),
                              name="ricorda-subscriptions", daemon=True)
    thread.start()
    return thread
