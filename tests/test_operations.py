"""What a deployer sees: where settings come from, the startup summary, /healthz while warming,
/metrics, --version and --help, and the redacting log handler under every library's logger."""

from __future__ import annotations

import http.client
import io
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.serve.warmup import mask_url
from bot.settings.help import HELP
from bot.settings.model import Settings, load_settings
from bot.wiring.log_setup import configure_logging
from tests.fake_telegram import TOKEN, FakeTelegram
from tests.telegram_harness import BotProcess

REPO = Path(__file__).resolve().parents[1]
ACME = Path(__file__).parent / "fixtures" / "acme"


def ricorda(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    return subprocess.run([sys.executable, "-m", "bot", *args], env={**clean, **(env or {})},
                          cwd=REPO, capture_output=True, text=True, timeout=120)


# -- where settings come from --------------------------------------------------------------


@pytest.fixture
def no_ricorda_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in list(os.environ):
        if name.startswith("RICORDA_"):
            monkeypatch.delenv(name)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    return cwd


def test_env_file_in_the_data_dir_is_read(no_ricorda_env: Path, tmp_path: Path) -> None:
    """The docs tell deployers to put the tokens in the data dir's .env: they are read there."""
    data = tmp_path / "data"
    data.mkdir()
    (data / ".env").write_text(f"RICORDA_TELEGRAM_TOKEN={TOKEN}\nRICORDA_SLACK_PORT=3100\n")
    settings = load_settings(data_dir=data)
    assert settings.telegram_token is not None
    assert settings.telegram_token.get_secret_value() == TOKEN
    assert settings.slack_port == 3100


def test_precedence_environment_then_data_dir_then_working_directory(
    no_ricorda_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (no_ricorda_env / ".env").write_text(
        f"RICORDA_DATA_DIR={data}\nRICORDA_SLACK_PORT=1111\nRICORDA_METRICS_PORT=1112\n"
        "RICORDA_MAX_QUESTION_CHARS=11\n"
    )
    (data / ".env").write_text("RICORDA_SLACK_PORT=2222\nRICORDA_METRICS_PORT=2223\n")
    monkeypatch.setenv("RICORDA_METRICS_PORT", "3333")
    settings = load_settings()  # the data dir itself comes from the working directory's .env
    assert settings.data_dir == data
    assert settings.metrics_port == 3333  # the environment wins
    assert settings.slack_port == 2222  # then the data dir's .env
    assert settings.max_question_chars == 11  # then the working directory's


def test_database_password_is_masked_in_the_summary() -> None:
    shown = mask_url("postgresql://ricorda:s3cr3t-pw@db:5432/ricorda")
    assert "s3cr3t-pw" not in shown and "ricorda@db:5432/ricorda" in shown.replace(":***", "")


# -- every setting documented --------------------------------------------------------------


def _variables() -> set[str]:
    return {f"RICORDA_{name.upper()}" for name in Settings.model_fields}


def test_every_setting_has_help_and_is_in_serve_help_and_env_example() -> None:
    assert set(HELP) == set(Settings.model_fields), "add the new setting to bot/settings/help.py"
    shown = ricorda("serve", "--help", env={"COLUMNS": "200"}).stdout
    listed = set(re.findall(r"RICORDA_[A-Z0-9_]+", shown))
    assert _variables() <= listed, sorted(_variables() - listed)
    example = (REPO / ".env.example").read_text()
    in_example = set(re.findall(r"^#? ?(RICORDA_[A-Z0-9_]+)=", example, re.MULTILINE))
    assert in_example == _variables(), (sorted(_variables() - in_example),
                                        sorted(in_example - _variables()))


def test_version_and_short_help() -> None:
    version = ricorda("--version")
    assert version.returncode == 0 and re.fullmatch(r"ricorda \S+\n", version.stdout)
    short = ricorda("-h")
    assert short.returncode == 0 and "serve" in short.stdout and "migrate" in short.stdout


# -- the redacting handler -----------------------------------------------------------------


@pytest.fixture
def captured() -> Iterator[io.StringIO]:
    root = logging.getLogger()
    saved = root.level, list(root.handlers)
    stream = io.StringIO()
    yield stream
    for handler in list(root.handlers):
        root.removeHandler(handler)
    root.setLevel(saved[0])
    for handler in saved[1]:
        root.addHandler(handler)


@pytest.mark.parametrize("level", ["INFO", "DEBUG"])
def test_secrets_are_redacted_in_messages_and_tracebacks_of_every_library(
    captured: io.StringIO, level: str
) -> None:
    secret = "s3cret-signing-value-xyz"
    configure_logging(level, secrets=[secret, TOKEN], stream=captured)
    for name in ("telegram.ext.Updater", "httpx", "slack_bolt.App", "aiohttp.access",
                 "uvicorn.error", "chromadb"):
        log = logging.getLogger(name)
        log.warning("calling https://api.telegram.org/bot%s/getMe with %s", TOKEN, secret)
        try:
            raise ValueError(f"The token `{TOKEN}` was rejected; secret={secret}")
        except ValueError:
            log.exception("failed")
        log.error("unrelated xoxb-123-456-abcdefghij and xapp-1-A1-2-abcdef leaked")
    text = captured.getvalue()
    assert TOKEN not in text and secret not in text and TOKEN.split(":")[1] not in text
    assert "xoxb-123" not in text and "xapp-1-A1" not in text
    assert text.count("[redacted]") >= 6 * 4
    assert ("Traceback" in text) == (level == "DEBUG")


# -- serve: summary, warming, ready --------------------------------------------------------


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    done = ricorda("ingest", str(ACME / "glossary.toml"), str(ACME / "facts.csv"),
                   env={"RICORDA_DATA_DIR": str(data), "RICORDA_EMBEDDER": "hashing"})
    assert done.returncode == 0, done.stderr
    return data


def test_serve_prints_a_summary_by_default_and_is_ready_before_it_polls(kb: Path) -> None:
    fake = FakeTelegram().start()
    bot = BotProcess(kb, fake, RICORDA_LOG_LEVEL="")  # the default level
    try:
        bot.start()
        health = _metrics_port(bot)
        conn = http.client.HTTPConnection("127.0.0.1", health, timeout=10)
        conn.request("GET", "/healthz")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        bot.stop()
        fake.stop()
    out = bot.output()
    for expected in ("ricorda ", "telegram: long polling", "database: sqlite:///",
                     "vector store: embedded Chroma", "embedder: hashing", "thresholds L0",
                     "llm: none", "/healthz"):
        assert expected in out, (expected, out)
    assert out.index("ready:") < out.index("Telegram: long polling")
    assert TOKEN not in out


def _metrics_port(bot: BotProcess) -> int:
    found = re.search(r"health and metrics on http://127\.0\.0\.1:(\d+)/healthz", bot.output())
    assert found, bot.output()
    return int(found.group(1))


def test_healthz_says_warming_until_ready_and_head_is_answered(tmp_path: Path) -> None:
    import threading

    from bot.serve.health import start_health_server
    from bot.wiring.build import build_app
    from bot.wiring.metrics import Metrics

    app = build_app(load_settings(data_dir=tmp_path, embedder="hashing"))
    ready = threading.Event()
    server = start_health_server(app, metrics=Metrics(), host="127.0.0.1", port=0, ready=ready)
    try:
        def ask(method: str, path: str) -> tuple[int, bytes]:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            conn.request(method, path)
            response = conn.getresponse()
            body = response.read()
            conn.close()
            return response.status, body

        status, body = ask("GET", "/healthz")
        assert (status, json.loads(body)) == (503, {"status": "warming"})
        assert ask("HEAD", "/healthz") == (503, b"")
        ready.set()
        assert ask("GET", "/healthz")[0] == 200
        assert ask("HEAD", "/healthz") == (200, b"")
        status, metrics = ask("GET", "/metrics")
        assert status == 200
        for series in (b"process_cpu_seconds_total", b"process_resident_memory_bytes",
                       b"python_gc_collections_total", b"python_info"):
            assert series in metrics
        assert ask("HEAD", "/metrics") == (200, b"")
    finally:
        server.stop()
        app.close()
