"""Microsoft Teams end to end: the real bot (`ricorda serve` with RICORDA_TEAMS_APP_ID) on the
demo knowledge base, Microsoft played by tests/fake_teams.py on 127.0.0.1 (token endpoint,
OpenID metadata and keys of a local issuer, Bot Connector). Activities are signed as Teams
signs them; the replies are read as a Teams user reads them (card text, buttons).

The answer kinds are docs/replies.md's transcripts, the same cases Telegram and Slack pass
(tests/test_transcripts.py): found, not found, assumed with options (and the tap), refusal,
narrative, table with its chart; then admin purge, feedback and clearance.
"""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

from bot.settings.model import load_settings
from bot.wiring.build import build_app
from storage.feedback_reasons import SqlFeedbackReasons
from tests.fake_teams import APP_ID, PASSWORD, FakeTeams, buttons_of, card_of, new_key, text_of
from tests.fake_tenant import TENANT, FakeTenant
from tests.loopback import free_port, stop_process
from tests.test_transcripts import ANALYSIS, CASES, DEMO, INTERNAL

REPO = Path(__file__).resolve().parents[1]
ADMIN = "aad-admin-1"
CLEARED = "19:board@thread.tacv2"  # in the demo glossary's restricted_chats below


class TeamsBot:
    """`ricorda serve` as a deployer runs it, pointed at the fakes: Teams, and the bot's
    tenant (by default a single-tenant app in tests.fake_tenant.TENANT, as the docs set it
    up); `identity` replaces the identity settings (multi-tenant, managed identity)."""

    def __init__(self, data_dir: Path, fake: FakeTeams, tenant: FakeTenant | None = None, *,
                 identity: dict[str, str] | None = None) -> None:
        self.fake, self.port = fake, free_port()
        self.own_tenant = tenant is None
        self.tenant = tenant or FakeTenant(Path(tempfile.mkdtemp())).start()
        self.url = f"http://127.0.0.1:{self.port}/api/messages"
        self.log = data_dir / "teams-bot.log"
        if identity is None:
            identity = {"RICORDA_TEAMS_APP_PASSWORD": PASSWORD, "RICORDA_TEAMS_TENANT_ID": TENANT}
        env = {**os.environ, "RICORDA_DATA_DIR": str(data_dir),
               "RICORDA_TEAMS_APP_ID": APP_ID, **identity, **self.tenant.env(),
               "RICORDA_TEAMS_HOST": "127.0.0.1", "RICORDA_TEAMS_PORT": str(self.port),
               "RICORDA_TEAMS_OPENID_URL": fake.openid_url,
               "RICORDA_EMBEDDER": "hashing", "RICORDA_ADMINS": f"teams:{ADMIN}",
               "RICORDA_LOG_LEVEL": "INFO", "RICORDA_METRICS_PORT": "0",
               "RICORDA_REFERENCE_DATE": "2026-06-15", "HF_HUB_OFFLINE": "1"}
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "bot", "serve"], env=env,
                                         cwd=REPO, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300  # a busy machine builds the indexes slowly
        while not self._healthy():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Teams bot did not start:\n{self.output()[-3000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        stop_process(self.proc)
        if self.own_tenant:
            self.tenant.stop()

    def _healthy(self) -> bool:
        try:
            return httpx.get(self.url.replace("/api/messages", "/healthz")).status_code == 200
        except httpx.TransportError:
            return False

    def post(self, activity: dict[str, Any], **kw: Any) -> httpx.Response:
        return self.fake.post_activity(self.url, activity, **kw)

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo knowledge base as `ricorda demo` ingests it, one Teams channel cleared."""
    from bot.kb.ingest import ingest_paths

    root = tmp_path_factory.mktemp("teams")
    shutil.copytree(DEMO, root / "demo")
    glossary = root / "demo" / "glossary.toml"
    text = glossary.read_text()
    assert '"console:admin"]' in text
    glossary.write_text(text.replace('"console:admin"]', f'"console:admin", "teams:{CLEARED}"]'))
    app = build_app(load_settings(data_dir=root / "data", embedder="hashing"))
    try:
        summary = ingest_paths(app, [glossary, root / "demo" / "facts.csv", root / "demo" / "docs"])
        assert not summary.problems, summary.problems
    finally:
        app.close()
    return root / "data"


@pytest.fixture(scope="module")
def teams(data_dir: Path) -> Iterator[TeamsBot]:
    fake = FakeTeams().start()
    bot = TeamsBot(data_dir, fake)
    yield bot
    bot.stop()
    fake.stop()
    assert PASSWORD not in bot.output(), "the app password appeared in the log"


def ask(bot: TeamsBot, conversation: str, text: str, *, user: str = "aad-user-1",
        **kw: Any) -> dict[str, Any]:
    before = len(bot.fake.messages(conversation))
    assert bot.post(bot.fake.message(conversation, user, text, **kw)).status_code == 200
    return bot.fake.wait_for(lambda: bot.fake.messages(conversation)[before:])[0]


def tap(bot: TeamsBot, conversation: str, card: dict[str, Any], data: dict[str, Any], *,
        user: str = "aad-user-1") -> None:
    activity = bot.fake.tap(conversation, user, card["_id"], data)
    assert bot.post(activity).status_code == 200


@pytest.mark.parametrize(("name", "question", "present", "absent"), CASES,
                         ids=[c[0] for c in CASES])
def test_teams_reads_like_a_colleague(teams: TeamsBot, name: str, question: str,
                                      present: list[str], absent: list[str]) -> None:
    conversation = f"a:personal-{name}"
    reply = ask(teams, conversation, question)
    assert card_of(reply) is not None, reply
    seen = text_of(reply)
    for part in present:
        assert part in seen, seen
    for part in absent:
        assert part not in seen, seen
    assert not INTERNAL.search(seen), seen


@pytest.mark.parametrize(("name", "question", "chart", "present"), ANALYSIS,
                         ids=[c[0] for c in ANALYSIS])
def test_teams_analysis_is_a_table_with_its_chart(teams: TeamsBot, name: str, question: str,
                                                  chart: bool, present: list[str]) -> None:
    """The chart first, as an image card of its own, then the answer's card."""
    conversation = f"a:analysis-{name}"
    first = ask(teams, conversation, question)
    images = [b for b in (card_of(first) or {})["body"] if b["type"] == "Image"]
    if chart:
        (image,) = images
        png = base64.b64decode(image["url"].removeprefix("data:image/png;base64,"))
        with Image.open(io.BytesIO(png)) as drawn:  # the whole chart, in fewer colours
            assert drawn.format == "PNG" and drawn.size == (960, 540)
        reply = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[1:])[0]
    else:
        assert images == []
        reply = first
    seen = text_of(reply)
    for part in present:
        assert part in seen, seen


def test_a_channel_mention_is_answered_in_its_thread_and_other_posts_are_not(
        teams: TeamsBot) -> None:
    thread = "19:general@thread.tacv2;messageid=1700000000001"
    unaddressed = teams.fake.message(thread, "aad-user-2", "What was Orbis Italia revenue?",
                                     channel=True)
    assert teams.post(unaddressed).status_code == 200
    reply = ask(teams, thread, "What was Orbis Italia revenue in FY2024?", channel=True,
                mention=True)
    assert "Orbis Italia revenue, FY2024: €318.9M" in text_of(reply)
    assert reply["replyToId"]  # in the thread of the question
    assert len(teams.fake.messages(thread)) == 1  # the post without a mention got nothing


def test_assumed_answer_offers_options_and_a_tap_answers_it(teams: TeamsBot) -> None:
    conversation = "a:options"
    reply = ask(teams, conversation, "What was revenue?")
    assert "Assumed: Orbis Group (default entity)" in text_of(reply)
    body = card_of(reply)["body"]  # type: ignore[index]
    headers = [b["text"] for b in body if b.get("weight") == "Bolder" and
               b["text"].endswith(":")]
    assert "Company or unit:" in headers and "Period:" in headers
    buttons = buttons_of(reply)
    labels = [title for title, _ in buttons]
    assert "Orbis Italia" in labels and not any("Orbis Labs" in t for t in labels)  # restricted
    data = dict(buttons)["Orbis Italia"]
    tap(teams, conversation, reply, data)
    answer = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[1:])[0]
    assert "Orbis Italia revenue" in text_of(answer)
    tap(teams, conversation, reply, data)  # the same option again: answered once
    note = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[2:])[0]
    assert card_of(note) is None and "above" in note["text"]


def test_a_forged_option_is_expired_and_asks_nothing(teams: TeamsBot) -> None:
    conversation = "a:forged"
    reply = ask(teams, conversation, "What was revenue?")
    tap(teams, conversation, reply, {"ricorda_option": "o:forged:0:bad"})
    note = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[1:])[0]
    assert "expired" in note["text"].lower()


def test_a_request_without_a_valid_token_is_refused_and_never_answered(teams: TeamsBot) -> None:
    conversation = "a:forged-token"
    activity = teams.fake.message(conversation, "aad-user-9", "What was revenue?")
    assert teams.post(activity, token=teams.fake.activity_token(key=new_key())).status_code == 401
    assert teams.post(activity, token=teams.fake.activity_token(audience="someone-else")
                      ).status_code == 401
    assert teams.post(activity, token=teams.fake.activity_token(
        service_url="http://127.0.0.1:9/elsewhere")).status_code == 401
    unsigned = httpx.post(teams.url, json=activity, timeout=10)
    assert unsigned.status_code == 401
    # the same activity, signed: answered, once (the refused ones left nothing behind)
    reply = ask(teams, conversation, "What was Orbis Italia revenue in FY2024?")
    assert "€318.9M" in text_of(reply)
    assert len(teams.fake.messages(conversation)) == 1


def test_admin_purge_all_asks_for_confirmation_and_only_the_admin_can_confirm(
        teams: TeamsBot) -> None:
    conversation = "a:admin"
    outsider = ask(teams, "a:outsider", "/purge all", user="aad-user-3")
    assert buttons_of(outsider) == [] and "admin" in text_of(outsider).lower()
    prompt = ask(teams, conversation, "/purge all", user=ADMIN)
    buttons = buttons_of(prompt)
    assert len(buttons) == 2
    (_, confirm), (_, _cancel) = buttons
    tap(teams, conversation, prompt, confirm, user="aad-user-3")  # not the admin who asked
    refused = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[1:])[0]
    assert "expired" in refused["text"].lower()
    tap(teams, conversation, prompt, confirm, user=ADMIN)
    (update,) = teams.fake.wait_for(lambda: [u for u in teams.fake.updated
                                             if u["_id"] == prompt["_id"]])
    assert buttons_of(update) == [] and text_of(update)  # the prompt became its outcome
    listing = ask(teams, conversation, "/fastpaths", user=ADMIN)
    assert card_of(listing)["body"][0]["fontType"] == "Monospace"  # type: ignore[index]


def test_a_reaction_on_an_answer_is_a_verdict_on_its_turn(teams: TeamsBot,
                                                          data_dir: Path) -> None:
    conversation = "a:feedback"
    reply = ask(teams, conversation, "What was Orbis Italia revenue in FY2024?")
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        found: list[str | None] = []

        def mapped() -> str | None:
            found.append(app.storage.turns.turn_for_message("teams", f"teams:{conversation}",
                                                    reply["_id"]))
            return found[-1]

        turn = teams.fake.wait_for(mapped, timeout=10)
        user = "aad-user-4"
        teams.post(teams.fake.reaction(conversation, user, reply["_id"], added=("like",)))
        teams.fake.wait_for(lambda: [f.verdict for f in app.storage.turns.feedback_for(turn)]
                            == ["positive"], timeout=20)
        teams.post(teams.fake.reaction(conversation, user, reply["_id"], removed=("like",)))
        teams.fake.wait_for(lambda: app.storage.turns.feedback_for(turn) == [], timeout=20)
        teams.post(teams.fake.reaction(conversation, user, reply["_id"], added=("👎",)))
        teams.fake.wait_for(lambda: [f.verdict for f in app.storage.turns.feedback_for(turn)]
                            == ["negative"], timeout=20)
    finally:
        app.close()


def test_a_cross_reply_is_a_verdict_and_asks_what_was_wrong_once(teams: TeamsBot,
                                                                 data_dir: Path) -> None:
    """Teams at parity: "✗" in reply to an answer (its replyToId) is a negative verdict, said
    back in a short reply; the reason buttons follow, a tap settles the prompt, and the next
    message is the note for the admins, not a question."""
    conversation, user = "a:cross-reply", "aad-user-7"
    reply = ask(teams, conversation, "What was Orbis Italia revenue in FY2024?", user=user)
    app = build_app(load_settings(data_dir=data_dir, embedder="hashing"))
    try:
        turn = teams.fake.wait_for(lambda: app.storage.turns.turn_for_message(
            "teams", f"teams:{conversation}", reply["_id"]), timeout=10)
        before = len(teams.fake.messages(conversation))
        teams.post(teams.fake.message(conversation, user, "✗", replyToId=reply["_id"]))
        noted, prompt = teams.fake.wait_for(
            lambda: (m := teams.fake.messages(conversation)[before:])[1:] and m, timeout=20)[:2]
        assert "noted as wrong" in text_of(noted)
        assert "What was wrong?" in text_of(prompt)
        reasons = dict(buttons_of(prompt))
        assert {"Wrong figure", "Wrong period"} <= set(reasons)
        assert [(f.verdict, f.via) for f in app.storage.turns.feedback_for(turn)] == [
            ("negative", "reply")]
        tap(teams, conversation, prompt, reasons["Wrong figure"], user=user)
        settled = teams.fake.wait_for(lambda: [u for u in teams.fake.updated
                                               if u["_id"] == prompt["_id"]], timeout=20)[0]
        assert "Noted: Wrong figure." in text_of(settled) and buttons_of(settled) == []
        more = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[before + 2:],
                                   timeout=20)[0]
        assert "Anything to add?" in text_of(more)
        thanks = ask(teams, conversation, "It was the FY2023 figure", user=user)
        assert "the admins will see it" in text_of(thanks)
        entry = SqlFeedbackReasons(app.storage.engine).for_turn(turn)
        assert entry is not None
        assert (entry.reason, entry.note) == ("figure", "It was the FY2023 figure")
        teams.post(teams.fake.message(conversation, user, "✗", replyToId=reply["_id"]))
        again = teams.fake.wait_for(lambda: teams.fake.messages(conversation)[before + 4:],
                                    timeout=20)
        assert "What was wrong?" not in "".join(text_of(m) for m in again)  # asked once
    finally:
        app.close()


def test_restricted_names_only_in_a_cleared_channel(teams: TeamsBot) -> None:
    question = "What was Orbis Labs revenue in FY2024?"
    outside = ask(teams, "19:general@thread.tacv2;messageid=2", question, channel=True,
                  mention=True)
    assert "Orbis Labs" not in text_of(outside)
    inside = ask(teams, f"{CLEARED};messageid=3", question, channel=True, mention=True)
    assert "Orbis Labs" in text_of(inside)


@pytest.mark.parametrize(("password", "says"), [
    ("", "RICORDA_TEAMS_APP_PASSWORD is required"),
    ("wrong-secret-5b1e", "the token endpoint refused RICORDA_TEAMS_APP_ID"),
])
def test_a_missing_or_refused_password_stops_serve_in_one_line(
        teams: TeamsBot, data_dir: Path, password: str, says: str) -> None:
    env = {**os.environ, "RICORDA_DATA_DIR": str(data_dir), "RICORDA_TEAMS_APP_ID": APP_ID,
           "RICORDA_TEAMS_APP_PASSWORD": password, "RICORDA_TEAMS_PORT": str(free_port()),
           "RICORDA_TEAMS_TENANT_ID": TENANT, **teams.tenant.env(), "RICORDA_EMBEDDER": "hashing",
           "RICORDA_METRICS_PORT": "0", "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "bot", "serve"], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert says in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and (not password or password not in done.stderr)
