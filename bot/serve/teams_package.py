"""`ricorda teams-package`: the app package an admin uploads to Teams (Teams admin center, or
"Upload a custom app"): manifest.json at the current schema version, a 192x192 colour icon and
a 32x32 outline icon (white on transparent), zipped flat as Teams wants them. The bot is
offered in personal chats, teams and group chats; its command menu lists help and the admin
commands with their catalog descriptions."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from pathlib import Path
from typing import Any

MANIFEST_VERSION = "1.22"
SCHEMA = f"https://developer.microsoft.com/json-schemas/teams/v{MANIFEST_VERSION}/MicrosoftTeams.schema.json"
ACCENT = "#1F6F5C"
SCOPES = ["personal", "team", "groupChat"]
SHORT = "Answers about your company's figures and documents"
FULL = ("ricorda answers questions about your company's figures and documents, with their "
        "sources. Ask in a chat with the bot, or mention it in a channel. React with 👍 or 👎 "
        "to tell it whether an answer was right.")
HELP = "how to ask, and what the bot knows"
_NAMESPACE = uuid.UUID("5b0f9c62-8f1e-4d53-9a55-2f5f2e6d7c11")


def manifest(app_id: str, *, name: str = "ricorda", version: str = "1.0.0",
             website: str = "https://example.com") -> dict[str, Any]:
    """The manifest; its `id` is derived from the bot's app id, so a regenerated package
    updates the same Teams app instead of adding a second one."""
    from core.catalog.lookup import say
    from core.chat.admin_commands import COMMANDS

    commands = [{"title": "help", "description": HELP}] + [
        {"title": name_, "description": say(f"command_{name_}", "en")[:128]}
        for name_ in COMMANDS]
    return {
        "$schema": SCHEMA,
        "manifestVersion": MANIFEST_VERSION,
        "version": version,
        "id": str(uuid.uuid5(_NAMESPACE, app_id)),
        "developer": {"name": name, "websiteUrl": website, "privacyUrl": website,
                      "termsOfUseUrl": website},
        "name": {"short": name[:30], "full": name[:100]},
        "description": {"short": SHORT[:80], "full": FULL[:4000]},
        "icons": {"color": "color.png", "outline": "outline.png"},
        "accentColor": ACCENT,
        "bots": [{"botId": app_id, "scopes": SCOPES, "isNotificationOnly": False,
                  "supportsFiles": False,
                  # Teams lists at most 10: the first ten, the others work when typed
                  "commandLists": [{"scopes": SCOPES, "commands": commands[:10]}]}],
        "permissions": ["identity", "messageTeamMembers"],
        "validDomains": [],
    }


def icons() -> dict[str, bytes]:
    """A speech bubble with an "r": 192x192 on the accent colour, and its 32x32 outline."""
    from PIL import Image, ImageDraw

    def draw(size: int, fill: tuple[int, ...], ink: tuple[int, ...], back: tuple[int, ...]
             ) -> bytes:
        image = Image.new("RGBA", (size, size), back)
        pen = ImageDraw.Draw(image)
        m = size // 6
        pen.rounded_rectangle((m, m, size - m, size - 2 * m), radius=size // 8, outline=ink,
                              fill=fill, width=max(2, size // 16))
        pen.polygon([(size // 3, size - 2 * m), (size // 3, size - m),
                     (size // 2, size - 2 * m)], fill=ink)
        stem, width = size // 2 - size // 10, max(2, size // 14)
        pen.line((stem, size // 3, stem, size // 2 + size // 12), fill=ink, width=width)
        pen.arc((stem, size // 3, stem + size // 4, size // 3 + size // 5), 180, 300, fill=ink,
                width=width)
        out = io.BytesIO()
        image.save(out, "PNG")
        return out.getvalue()

    white, clear = (255, 255, 255, 255), (0, 0, 0, 0)
    accent = (*(int(ACCENT[i:i + 2], 16) for i in (1, 3, 5)), 255)
    return {"color.png": draw(192, accent, white, accent),
            "outline.png": draw(32, clear, white, clear)}


def write_package(app_id: str, out: Path, *, name: str = "ricorda",
                  website: str = "https://example.com") -> Path:
    """manifest.json and the two icons at the zip's top level (no folder: Teams refuses one)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as package:
        package.writestr("manifest.json",
                         json.dumps(manifest(app_id, name=name, website=website), indent=2,
                                    ensure_ascii=False))
        for file, data in icons().items():
            package.writestr(file, data)
    return out
