"""The Slack adapter (slack-bolt, asyncio): platform events in, core requests out."""

from adapters.slack.application import Retries, api_url, build_bolt_app, web_client
from adapters.slack.http_endpoint import EVENTS_PATH, start_site, web_application
from adapters.slack.services import PLATFORM, SlackServices

__all__ = [
    "EVENTS_PATH",
    "PLATFORM",
    "Retries",
    "SlackServices",
    "api_url",
    "build_bolt_app",
    "start_site",
    "web_application",
    "web_client",
]
