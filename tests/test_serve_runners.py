"""`ricorda serve` runs each platform through its runner: every runner's checks first, then the
shared parts (health and metrics server, warm-up, nightly timer), then the runners. A mistake in
one platform's settings, or a token its platform refuses, stops the process before a port is
bound or another platform is connected."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import bot.serve.run
from bot.serve.run import RUNNERS, configured_runners, run_serve
from bot.serve.runner import Runner
from bot.settings.model import Settings
from core.contracts.errors import ConfigError
from tests.fake_slack import BOT_TOKEN, FakeSlack
from tests.fake_telegram import TOKEN, FakeTelegram
from tests.loopback import free_port, stop_process

REPO = Path(__file__).resolve().parents[1]
ACME = Path(__file__).parent / "fixtures" / "acme"
REFUSED_TOKEN = "999999:REFUSED-token-for-tests-0123456789abcdefgh"  # well formed, unknown


# -- the registry, with runners that record what happens to them ------------------------------


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.threads: dict[str, tuple[str, bool, Executor]] = {}
        self.served = threading.Event()

    def runner(self, name: str, *, main: bool = False, fail_check: bool = False) -> Runner:
        def check(app: Any) -> None:
            self.events.append(f"check {name}")
            if fail_check:
                raise ConfigError(f"RICORDA_{name.upper()}_SECRET must be set")

        def confirm(app: Any) -> None:
            self.events.append(f"confirm {name}")

        def serve(app: Any, worker: Executor, on_main_thread: bool) -> None:
            self.events.append(f"serve {name}")
            self.threads[name] = (threading.current_thread().name, on_main_thread, worker)
            if len(self.threads) == 2:
                self.served.set()
            self.served.wait(5)  # a real runner blocks until the process stops

        return Runner(name, f"RICORDA_{name.upper()}_TOKEN", lambda s: True, check, confirm,
                      serve, needs_main_thread=main)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    rec = Recorder()
    monkeypatch.setattr(
        bot.serve.run, "start_shared_parts", lambda app: rec.events.append("shared")
    )
    return rec


def stand_in_app() -> Any:
    """What run_serve reads before the shared parts: the settings, the glossary and core's
    lock (the core worker's)."""
    from core.planning.core_lock import CoreLock

    return SimpleNamespace(settings=SimpleNamespace(metrics_host="127.0.0.1", metrics_port=0),
                           core=SimpleNamespace(glossary=object(), core_lock=CoreLock()))


def test_every_check_then_every_confirmation_then_shared_parts_then_runners(
    recorder: Recorder,
) -> None:
    run_serve(stand_in_app(), [recorder.runner("chatty", main=True), recorder.runner("quiet")])
    assert recorder.events[:5] == ["check chatty", "check quiet", "confirm chatty",
                                   "confirm quiet", "shared"]
    assert sorted(recorder.events[5:]) == ["serve chatty", "serve quiet"]


def test_a_failing_check_starts_nothing(recorder: Recorder) -> None:
    runners = [recorder.runner("first"), recorder.runner("second", fail_check=True)]
    with pytest.raises(ConfigError, match="RICORDA_SECOND_SECRET"):
        run_serve(stand_in_app(), runners)
    assert recorder.events == ["check first", "check second"]


def test_the_runner_that_needs_the_main_thread_gets_it_and_all_share_one_core_worker(
    recorder: Recorder,
) -> None:
    run_serve(stand_in_app(), [recorder.runner("signals", main=True), recorder.runner("other")])
    main_name, on_main, worker = recorder.threads["signals"]
    other_name, other_on_main, other_worker = recorder.threads["other"]
    assert main_name == threading.current_thread().name and on_main
    assert other_name == "ricorda-other" and not other_on_main
    assert worker is other_worker


def test_no_platform_configured_names_every_switch() -> None:
    with pytest.raises(ConfigError) as caught:
        configured_runners(SimpleNamespace(telegram_token=None, slack_bot_token=None,
                                           teams_app_id=None, mattermost_url=None))
    assert "RICORDA_TELEGRAM_TOKEN" in str(caught.value)
    assert "RICORDA_SLACK_BOT_TOKEN" in str(caught.value)
    assert "RICORDA_TEAMS_APP_ID" in str(caught.value)
    assert "RICORDA_MATTERMOST_URL" in str(caught.value)


def test_the_registry_knows_telegram_slack_teams_and_mattermost() -> None:
    assert [r.name for r in RUNNERS] == ["telegram", "slack", "teams", "mattermost"]
    assert sum(r.needs_main_thread for r in RUNNERS) <= 1
    for runner in RUNNERS:  # each switch is a real setting
        assert runner.switch.removeprefix("RICORDA_").lower() in Settings.model_fields


# -- the real `ricorda serve` against the fake Bot API and Web API ------------------------------


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = tmp_path_factory.mktemp("kb")
    done = subprocess.run([sys.executable, "-m", "bot", "ingest", str(ACME / "glossary.toml")],
                          env={**_clean_env(), "RICORDA_DATA_DIR": str(data)}, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return data


@pytest.fixture
def fakes() -> Iterator[tuple[FakeTelegram, FakeSlack]]:
    telegram, slack = FakeTelegram().start(), FakeSlack().start()
    yield telegram, slack
    telegram.stop()
    slack.stop()


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}


def _both_platforms(kb_dir: Path, telegram: FakeTelegram, slack: FakeSlack, *,
                    telegram_token: str, metrics_port: int, slack_port: int) -> dict[str, str]:
    return {**_clean_env(), "RICORDA_DATA_DIR": str(kb_dir), "RICORDA_EMBEDDER": "hashing",
            "RICORDA_TELEGRAM_TOKEN": telegram_token, "RICORDA_TELEGRAM_API_URL": telegram.url,
            "RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN, "RICORDA_SLACK_SIGNING_SECRET": "0123abcd",
            "RICORDA_SLACK_API_URL": slack.api_url, "RICORDA_SLACK_HOST": "127.0.0.1",
            "RICORDA_SLACK_PORT": str(slack_port), "RICORDA_METRICS_HOST": "127.0.0.1",
            "RICORDA_METRICS_PORT": str(metrics_port), "HF_HUB_OFFLINE": "1"}


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_a_token_telegram_refuses_stops_serve_before_slack_or_the_health_server(
    kb_dir: Path, fakes: tuple[FakeTelegram, FakeSlack]
) -> None:
    """Both platforms configured, the Telegram token refused (401): exit 2 with the one line
    that says so, at the default INFO level; no health server, no Slack call."""
    telegram, slack = fakes
    env = _both_platforms(kb_dir, telegram, slack, telegram_token=REFUSED_TOKEN,
                          metrics_port=free_port(), slack_port=free_port())
    done = subprocess.run([sys.executable, "-m", "bot", "serve"], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # nothing started, so nothing else was logged
    assert lines[0].startswith("error: Telegram rejected RICORDA_TELEGRAM_TOKEN"), lines[0]
    assert done.returncode == 2
    assert slack.calls() == []  # Slack was never asked, let alone connected to
    assert REFUSED_TOKEN not in done.stdout + done.stderr


def test_no_port_is_bound_and_slack_is_not_called_while_telegram_is_asked(
    kb_dir: Path, fakes: tuple[FakeTelegram, FakeSlack]
) -> None:
    """getMe held unanswered: meanwhile neither the health port nor Slack's events port is
    bound and Slack has not been called; once Telegram answers, everything starts."""
    telegram, slack = fakes
    metrics_port, slack_port = free_port(), free_port()
    env = _both_platforms(kb_dir, telegram, slack, telegram_token=TOKEN,
                          metrics_port=metrics_port, slack_port=slack_port)
    telegram.hold("getMe")
    proc = subprocess.Popen([sys.executable, "-m", "bot", "serve"], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        telegram.wait_for(lambda: telegram.holding("getMe") or proc.poll() is not None,
                          timeout=60)
        assert proc.poll() is None, "serve exited before asking Telegram"
        bound = [p for p in (metrics_port, slack_port) if _listening(p)]
        assert bound == [] and slack.calls() == []
        telegram.release("getMe")
        _wait(lambda: _listening(metrics_port) and _listening(slack_port)
              and bool(telegram.calls("getUpdates")))
        assert [c.method for c in slack.calls()] == ["auth.test"]  # asked once, before serving
    finally:
        telegram.release("getMe")
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        stop_process(proc)


def _wait(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "serve did not start every part"
        time.sleep(0.2)
