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
    # Teams shows at most 10 commands in a list: the first ten; the rest work when typed
    assert titles == ["help", *COMMANDS][:10]
    assert color.size == (192, 192) and outline.size == (32, 32)
    rgba = outline.convert("RGBA")
    colours = {rgba.getpixel((x, y)) for x in range(32) for y in range(32)}
    assert all(a == 0 or (r, g, b) == (255, 255, 255) for r, g, b, a in colours)  # Teams' rule


def test_the_same_app_id_gives_the_same_teams_app(tmp_path: Path) -> None:
    from bot.serve.teams_package import manifest

    assert manifest(APP_ID)["id"] == manifest(APP_ID)["id"] != manifest(APP_ID[::-1])["id"]


def test_teams_package_refuses_what_is_not_an_app_id(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "teams-package", "--app-id", "my-bot",
                           "--out", str(tmp_path / "x.zip")], cwd=REPO, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Microsoft App ID" in done.stderr
    assert not (tmp_path / "x.zip").exists()


# what Slack requires for each event the adapter listens to and each Web API method it calls
EVENT_SCOPES = {"app_mention": "app_mentions:read", "message.im": "im:history",
                "reaction_added": "reactions:read", "reaction_removed": "reactions:read"}
METHOD_SCOPES = {"chat_postMessage": "chat:write", "chat_update": "chat:write",
                 "chat_postEphemeral": "chat:write", "files_upload_v2": "files:write",
                 "reactions_add": "reactions:write", "reactions_remove": "reactions:write",
                 "reactions_get": "reactions:read", "users_info": "users:read"}


def _slack_adapter() -> tuple[set[str], set[str], bool, str]:
    """(events, Web API methods, whether it takes button actions, its slash command), read
    from adapters/slack: a `message` listener answers direct messages only, so `message.im`."""
    import re

    from adapters.slack.words import COMMAND

    source = "\n".join(p.read_text() for p in (REPO / "adapters/slack").glob("*.py"))
    events = {"message.im" if e == "message" else e
              for e in re.findall(r'bolt\.event\("([a-z_.]+)"\)', source)}
    methods = set(re.findall(r"\bclient\.([a-z]+_[A-Za-z0-9_]+)\b", source))
    return events, methods, "bolt.action(" in source, COMMAND


def test_the_slack_manifests_ask_for_what_the_adapter_listens_to_and_calls() -> None:
    import yaml

    events, methods, actions, command = _slack_adapter()
    assert events == {"app_mention", "message.im", "reaction_added", "reaction_removed"}
    assert methods <= set(METHOD_SCOPES), methods - set(METHOD_SCOPES)  # a new call: add it
    needed = {EVENT_SCOPES[e] for e in events} | {METHOD_SCOPES[m] for m in methods}
    needed.add("commands")
    for name, socket in (("manifest.yml", True), ("manifest-http.yml", False)):
        app = yaml.safe_load((REPO / "deploy/slack" / name).read_text())
        settings, features = app["settings"], app["features"]
        assert set(app["oauth_config"]["scopes"]["bot"]) == needed, name
        assert set(settings["event_subscriptions"]["bot_events"]) == events, name
        assert settings["interactivity"]["is_enabled"] is actions, name
        assert settings["socket_mode_enabled"] is socket, name
        (slash,) = features["slash_commands"]
        assert slash["command"] == command, name
        home = features["app_home"]
        assert home["messages_tab_enabled"] and not home["messages_tab_read_only_enabled"]
        if not socket:  # Slack posts everything to the one path bolt serves
            urls = {settings["event_subscriptions"]["request_url"],
                    settings["interactivity"]["request_url"], slash["url"]}
            assert {u.removeprefix("https://ricorda.example.com") for u in urls} == {
                "/slack/events"}, urls
