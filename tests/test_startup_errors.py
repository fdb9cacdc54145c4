"""Every startup mistake a deployer can make ends with one line: the variable, what is wrong and
the fix; exit 2 for configuration, 1 for something that failed at run time; no traceback unless
asked for (--debug)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fake_slack import APP_TOKEN, BOT_TOKEN
from tests.fake_telegram import TOKEN
from tests.loopback import free_port

REPO = Path(__file__).resolve().parents[1]
ACME = Path(__file__).parent / "fixtures" / "acme"
SLACK_HTTP = {"RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN, "RICORDA_SLACK_SIGNING_SECRET": "0123abcd"}
BUSY = "{busy}"  # replaced by a port the test holds open


@dataclass(frozen=True)
class Case:
    name: str
    env: dict[str, str]
    variable: str
    fix: str
    code: int = 2
    command: tuple[str, ...] = ("serve",)
    kb: bool = False  # needs an ingested knowledge base (the check comes after that one)
    extra: tuple[str, ...] = field(default=())


CASES = [
    Case("llm", {"RICORDA_LLM": "foo"}, "RICORDA_LLM", "none, llama-cpp or openai"),
    Case("llm at ask", {"RICORDA_LLM": "foo"}, "RICORDA_LLM", "none, llama-cpp or openai",
         command=("ask", "revenue?")),
    Case("embedder", {"RICORDA_EMBEDDER": "magic"}, "RICORDA_EMBEDDER", "auto, use, bge-m3"),
    Case("log level", {"RICORDA_LOG_LEVEL": "LOUD"}, "RICORDA_LOG_LEVEL", "DEBUG, INFO"),
    Case("mysql url", {"RICORDA_DATABASE_URL": "mysql://u:pw@db.example.com/r"},
         "RICORDA_DATABASE_URL", "use postgresql://"),
    Case("postgres refused", {"RICORDA_DATABASE_URL": "postgresql://r:pw@127.0.0.1:{free}/r"},
         "RICORDA_DATABASE_URL", "connection refused", code=1),
    Case("data dir is a file", {"RICORDA_DATA_DIR": "{file}"}, "RICORDA_DATA_DIR", "is a file"),
    Case("data dir cannot be created", {"RICORDA_DATA_DIR": "{file}/sub"}, "RICORDA_DATA_DIR",
         "cannot be created"),
    Case("data dir not writable", {"RICORDA_DATA_DIR": "{readonly}"}, "RICORDA_DATA_DIR",
         "not writable"),
    Case("maintenance time", {"RICORDA_MAINTENANCE_TIME": "25:00"}, "RICORDA_MAINTENANCE_TIME",
         "HH:MM"),
    Case("maintenance zone", {"RICORDA_MAINTENANCE_TIMEZONE": "Mars/Olympus"},
         "RICORDA_MAINTENANCE_TIMEZONE", "IANA name"),
    Case("telegram token shape", {"RICORDA_TELEGRAM_TOKEN": "notatoken"},
         "RICORDA_TELEGRAM_TOKEN", "BotFather"),
    Case("slack bot token shape", {"RICORDA_SLACK_BOT_TOKEN": "xoxp-user-token"},
         "RICORDA_SLACK_BOT_TOKEN", "xoxb-"),
    Case("slack app token shape", {**SLACK_HTTP, "RICORDA_SLACK_APP_TOKEN": BOT_TOKEN},
         "RICORDA_SLACK_APP_TOKEN", "xapp-"),
    Case("webhook not https", {"RICORDA_TELEGRAM_WEBHOOK_URL": "http://bot.example.com/t"},
         "RICORDA_TELEGRAM_WEBHOOK_URL", "https://"),
    Case("webhook not a url", {"RICORDA_TELEGRAM_WEBHOOK_URL": "bot.example.com"},
         "RICORDA_TELEGRAM_WEBHOOK_URL", "full URL"),
    Case("chroma url", {"RICORDA_CHROMA_URL": "ftp://chroma"}, "RICORDA_CHROMA_URL", "full URL"),
    Case("port out of range", {"RICORDA_SLACK_PORT": "70000"}, "RICORDA_SLACK_PORT", "1 to 65535"),
    Case("port not a number", {"RICORDA_METRICS_PORT": "http"}, "RICORDA_METRICS_PORT",
         "port number"),
    Case("bool", {"RICORDA_SHOW_FOOTER": "maybe"}, "RICORDA_SHOW_FOOTER", "true or false"),
    Case("int", {"RICORDA_AGING_MAX_ENTRIES": "lots"}, "RICORDA_AGING_MAX_ENTRIES",
         "whole number"),
    Case("negative days", {"RICORDA_AGING_UNUSED_DAYS": "-3"}, "RICORDA_AGING_UNUSED_DAYS",
         "0 or more"),
    Case("threshold", {"RICORDA_L0_COSINE_THRESHOLD": "2"}, "RICORDA_L0_COSINE_THRESHOLD",
         "between -1 and 1"),
    Case("question length", {"RICORDA_MAX_QUESTION_CHARS": "0"}, "RICORDA_MAX_QUESTION_CHARS",
         "e.g. 2000"),
    Case("reference date", {"RICORDA_REFERENCE_DATE": "2026-13-45"}, "RICORDA_REFERENCE_DATE",
         "YYYY-MM-DD"),
    Case("admins", {"RICORDA_ADMINS": "bob"}, "RICORDA_ADMINS", "telegram:123456789"),
    Case("llama-cpp without model", {"RICORDA_LLM": "llama-cpp"}, "RICORDA_LLM_MODEL_PATH",
         ".gguf"),
    Case("llama-cpp model missing", {"RICORDA_LLM": "llama-cpp",
                                     "RICORDA_LLM_MODEL_PATH": "/nowhere/m.gguf"},
         "RICORDA_LLM_MODEL_PATH", ".gguf"),
    Case("openai without url", {"RICORDA_LLM": "openai"}, "RICORDA_LLM_BASE_URL", "http://"),
    Case("bge path missing", {"RICORDA_BGE_MODEL_PATH": "/nowhere/bge"},
         "RICORDA_BGE_MODEL_PATH", "unset it"),
    Case("llm timeout", {"RICORDA_LLM_TIMEOUT_S": "-1"}, "RICORDA_LLM_TIMEOUT_S", "seconds"),
    Case("no platform", {}, "RICORDA_TELEGRAM_TOKEN", "RICORDA_SLACK_BOT_TOKEN", kb=True),
    Case("webhook without secret", {"RICORDA_TELEGRAM_TOKEN": TOKEN,
                                    "RICORDA_TELEGRAM_WEBHOOK_URL": "https://bot.example.com/t"},
         "RICORDA_TELEGRAM_WEBHOOK_SECRET", "must be set", kb=True),
    Case("bad webhook secret with slack configured too",
         {**SLACK_HTTP, "RICORDA_TELEGRAM_TOKEN": TOKEN,
          "RICORDA_TELEGRAM_WEBHOOK_URL": "https://bot.example.com/t",
          "RICORDA_TELEGRAM_WEBHOOK_SECRET": "has spaces"},
         "RICORDA_TELEGRAM_WEBHOOK_SECRET", "must be set", kb=True),
    Case("slack http without signing secret", {"RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN},
         "RICORDA_SLACK_SIGNING_SECRET", "Socket Mode", kb=True),
    Case("metrics port busy", {**SLACK_HTTP, "RICORDA_SLACK_PORT": "{free}",
                               "RICORDA_METRICS_PORT": BUSY},
         "RICORDA_METRICS_PORT", "free port", kb=True),
    Case("slack port busy", {**SLACK_HTTP, "RICORDA_SLACK_PORT": BUSY},
         "RICORDA_SLACK_PORT", "free port", kb=True),
    Case("webhook port busy", {"RICORDA_TELEGRAM_TOKEN": TOKEN,
                               "RICORDA_TELEGRAM_WEBHOOK_URL": "https://bot.example.com/t",
                               "RICORDA_TELEGRAM_WEBHOOK_SECRET": "s3cret",
                               "RICORDA_TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
                               "RICORDA_TELEGRAM_WEBHOOK_PORT": BUSY},
         "RICORDA_TELEGRAM_WEBHOOK_PORT", "free port", kb=True),
    Case("slack app token empty", {"RICORDA_SLACK_BOT_TOKEN": BOT_TOKEN,
                                            "RICORDA_SLACK_APP_TOKEN": "xapp-"},
         "RICORDA_SLACK_APP_TOKEN", "xapp-"),
]


@pytest.fixture(scope="module")
def kb_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with a glossary ingested (serve's checks after the knowledge-base check)."""
    data = tmp_path_factory.mktemp("kb")
    done = _run(("ingest", str(ACME / "glossary.toml")), {"RICORDA_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    return data


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def _run(command: tuple[str, ...], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
    base = {"RICORDA_EMBEDDER": "hashing", "RICORDA_METRICS_HOST": "127.0.0.1",
            "RICORDA_METRICS_PORT": "0", "RICORDA_SLACK_HOST": "127.0.0.1"}
    return subprocess.run([sys.executable, "-m", "bot", *command], env={**clean, **base, **env},
                          cwd=REPO, capture_output=True, text=True, timeout=120)


def _readonly_dir(tmp_path: Path) -> str:
    if os.geteuid() == 0:  # root writes through permissions: a kernel file system refuses it
        return "/sys/kernel"
    path = tmp_path / "ro"
    path.mkdir()
    path.chmod(0o500)
    return str(path)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_one_line_with_the_variable_and_the_fix(
    case: Case, tmp_path: Path, kb_dir: Path, busy_port: int
) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    data = tmp_path / "data"
    if case.kb:
        shutil.copytree(kb_dir, data)
    values = {"{file}": str(a_file), "{free}": str(free_port()), BUSY: str(busy_port),
              "{readonly}": _readonly_dir(tmp_path)}
    env = {"RICORDA_DATA_DIR": str(data)}
    for key, value in case.env.items():
        for placeholder, actual in values.items():
            value = value.replace(placeholder, actual)
        env[key] = value
    done = _run(case.command, env)
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in done.stderr
    assert case.variable in lines[0] and case.fix in lines[0], lines[0]
    assert done.returncode == case.code, lines[0]
    assert done.stdout == ""


def test_debug_shows_the_traceback_and_still_no_secret(tmp_path: Path) -> None:
    """--debug is the way to see where it failed; secrets stay out even then."""
    url = f"postgresql://ricorda:hunter2-pw@127.0.0.1:{free_port()}/r"
    env = {"RICORDA_DATA_DIR": str(tmp_path / "d"), "RICORDA_DATABASE_URL": url}
    quiet = _run(("serve",), env)
    loud = _run(("--debug", "serve"), env)
    assert "Traceback" not in quiet.stderr and "Traceback" in loud.stderr
    assert "connection refused" in loud.stderr.splitlines()[-1]
    for out in (quiet, loud):
        assert "hunter2-pw" not in out.stdout + out.stderr
    assert loud.returncode == quiet.returncode == 1


def test_slack_app_token_shape_checked_before_slack_is_called() -> None:
    """A well-formed app token still passes the local check (Slack itself judges it)."""
    from bot.settings.checks import SLACK_APP_TOKEN

    assert SLACK_APP_TOKEN.match(APP_TOKEN)
