"""One platform, one install: the chat SDKs are extras (`ricorda[telegram]`, `[slack]`,
`[teams]`, `[all]`). Here the SDKs are hidden from a real `python -m bot` process (an import
hook in sitecustomize, as if `pip install ricorda` had installed no extra): the demo, `ask` and
the help still work, and `serve` with a platform configured says which `pip install` to run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SDKS = ("telegram", "slack_bolt", "slack_sdk", "microsoft_teams", "msal", "jwt", "aiohttp")
HIDE = f'''
import sys

class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {SDKS!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}")
        return None

sys.meta_path.insert(0, _NotInstalled())
'''


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    hook = tmp_path / "no-extras"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(HIDE)
    environ = {**os.environ, "PYTHONPATH": str(hook), "RICORDA_EMBEDDER": "hashing",
               "RICORDA_METRICS_PORT": "0", "HF_HUB_OFFLINE": "1", **env}
    return subprocess.run([sys.executable, "-m", "bot", "--data-dir", str(tmp_path / "data"),
                           *args], env=environ, cwd=REPO, capture_output=True, text=True,
                          timeout=600)


def test_without_any_extra_the_demo_ask_and_help_work(tmp_path: Path) -> None:
    assert _run(tmp_path, "--help").returncode == 0
    serve_help = _run(tmp_path, "serve", "--help")
    assert serve_help.returncode == 0 and "RICORDA_TEAMS_APP_ID" in serve_help.stdout
    demo = _run(tmp_path, "demo", "--no-chat")
    assert demo.returncode == 0, demo.stderr[-2000:]
    asked = _run(tmp_path, "ask", "What was Orbis Italia revenue in FY2024?")
    assert asked.returncode == 0 and "318.9" in asked.stdout, asked.stderr[-2000:]


@pytest.mark.parametrize(("env", "extra"), [
    ({"RICORDA_TELEGRAM_TOKEN": "123456789:" + "A" * 35}, "telegram"),
    ({"RICORDA_SLACK_BOT_TOKEN": "xoxb-1-2-abc", "RICORDA_SLACK_APP_TOKEN": "xapp-1-A-2-abc"},
     "slack"),
    ({"RICORDA_TEAMS_APP_ID": "3f9a2c71-0d4e-4b8a-9c65-1e2f3a4b5c6d",
      "RICORDA_TEAMS_APP_PASSWORD": "secret-value-1", "RICORDA_TEAMS_TENANT_ID": "t-1"}, "teams"),
], ids=["telegram", "slack", "teams"])
def test_serve_names_the_extra_of_a_configured_platform(tmp_path: Path, env: dict[str, str],
                                                        extra: str) -> None:
    done = _run(tmp_path, "serve", **env)
    assert done.returncode != 0
    assert f"pip install 'ricorda[{extra}]'" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
