"""Run the real bot (`python -m bot serve`, else `python -m bot.serve.run`) against the fake Bot
API.

The bot is a separate process on a temp data dir, so a test can stop it and start it again
(restart between an answer and a reaction) exactly as an operator would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fake_telegram import TOKEN, FakeTelegram
from tests.loopback import stop_process

REPO = Path(__file__).resolve().parents[1]
ADMIN = 77


def serve_command() -> list[str]:
    """`ricorda serve`, exactly what a user runs."""
    return [sys.executable, "-m", "bot", "serve"]



class BotProcess:
    def __init__(self, data_dir: Path, fake: FakeTelegram, **env: str) -> None:
        self.fake = fake
        self.data_dir = data_dir
        self.logs: list[Path] = []
        self.env = {
            **os.environ,
            "RICORDA_DATA_DIR": str(data_dir),
            "RICORDA_TELEGRAM_TOKEN": TOKEN,
            "RICORDA_TELEGRAM_API_URL": fake.url,
            "RICORDA_EMBEDDER": "hashing",
            "RICORDA_ADMINS": f"telegram:{ADMIN}",
            "RICORDA_LOG_LEVEL": "INFO",
            "RICORDA_METRICS_PORT": "0",  # a free port: several bots may run at once
            "RICORDA_REFERENCE_DATE": "2026-06-15",
            "RICORDA_SHOW_FOOTER": "true",  # the tests read the serving level from the footer
            "HF_HUB_OFFLINE": "1",
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, *, ready: Any = None) -> BotProcess:
        """Start and wait until the bot is serving (polling, or its webhook is set)."""
        before = len(self.fake.calls("getUpdates")) + len(self.fake.calls("setWebhook"))
        log = self.data_dir / f"bot-{len(list(self.data_dir.glob('bot-*.log')))}.log"
        self.logs.append(log)
        with log.open("wb") as out:
            self.proc = subprocess.Popen(serve_command(), env=self.env, cwd=REPO, stdout=out,
                                         stderr=subprocess.STDOUT)
        # a busy machine may take minutes to warm up
        self.fake.wait_for(ready or (lambda: len(self.fake.calls("getUpdates"))
                                     + len(self.fake.calls("setWebhook")) > before), timeout=300)
        return self

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def output(self) -> str:
        return "".join(log.read_text(errors="replace") for log in self.logs if log.exists())
