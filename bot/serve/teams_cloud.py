"""Which Microsoft cloud the Teams bot talks to: the SDK's public cloud, with the endpoints
the settings move (tests point them at 127.0.0.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from microsoft_teams.api.auth.cloud_environment import CloudEnvironment

    from bot.settings.model import Settings


def teams_cloud(s: Settings) -> CloudEnvironment:
    from microsoft_teams.api.auth.cloud_environment import PUBLIC, with_overrides

    login = s.teams_login_url.rstrip("/") if s.teams_login_url else None
    return with_overrides(PUBLIC, openid_metadata_url=s.teams_openid_url, login_endpoint=login)
