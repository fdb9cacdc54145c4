"""Microsoft Teams: activities in over a JWT-checked HTTP endpoint, replies out through the Bot
Connector REST API (docs/teams.md). Only event parsing, the `ChatPort` and Adaptive Card markup
live here; every flow is core.chat.dispatch's."""

from adapters.teams.application import PLATFORM, TeamsBot, TeamsServices

__all__ = ["PLATFORM", "TeamsBot", "TeamsServices"]
