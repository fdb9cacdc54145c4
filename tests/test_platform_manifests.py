"""What an operator uploads to create the bot: the Teams app package (`ricorda teams-package`),
checked against the manifest schema's required parts (tests/fixtures, written from Microsoft's
reference: the official schema cannot be fetched without network), and the Slack app manifests
under deploy/slack/, checked against what the Slack adapter listens to."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
from PIL import Image

from core.chat.admin_commands import COMMANDS

REPO = Path(__file__).resolve().parents[1]
APP_ID = "3f9a2c71-0d4e-4b8a-9c65-1e2f3a4b5c6d"


def test_the_teams_package_is_a_valid_manifest_with_its_two_icons(tmp_path: Path) -> None:
    out = tmp_path / "ricorda.zip"
    done = subprocess.run([sys.executable, "-m", "bot", "teams-package", "--app-id", APP_ID,
                           "--out", str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out) as package:
        assert sorted(package.namelist()) == ["color.png", "manifest.json", "outline.png"]
        manifest = json.loads(package.read("manifest.json"))
        color = Image.open(io.BytesIO(package.read("color.png")))
        outline = Image.open(io.BytesIO(package.read("outline.png")))
    schema = json.loads((REPO / "tests/fixtures/teams_manifest_v1_22_required.schema.json")
                        .read_text())
    jsonschema.validate(manifest, schema)
    (bot,) = manifest["bots"]
    assert bot["botId"] == APP_ID and set(bot["scopes"]) == {"personal", "team", "groupChat"}
    titles = [c["title"] for lists in bot["commandLists"] for c in lists["commands"]]
    assert set(titles) == {"help", *COMMANDS}
    assert color.size == (192, 192) and outline.size == (32, 32)
    rgba = outline.convert("RGBA")
    colours = {rgba.getpixel((x, y)) for x in range(32) for y in range(32)}
    assert all(a == 0 or (r, g, b) == (255, 255, 255) for r, g, b, a in colours)  # Teams' rule


def test_the_same_app_id_gives_the_same_teams_app(tmp_path: Path) -> None:
    from bot.teams_package import manifest

    assert manifest(APP_ID)["id"] == manifest(APP_ID)["id"] != manifest(APP_ID[::-1])["id"]


def test_teams_package_refuses_what_is_not_an_app_id(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "teams-package", "--app-id", "my-bot",
                           "--out", str(tmp_path / "x.zip")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Microsoft App ID" in done.stderr
    assert not (tmp_path / "x.zip").exists()
