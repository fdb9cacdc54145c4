"""The container and service files: they parse, say what docs/deployment.md promises, name only real
settings, and the image's command line serves two replicas against PostgreSQL and a Chroma
server here (deploy/try_image.py; no container runtime on this machine)."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from bot.settings.model import Settings
from tests.chroma_server import chroma_cli

REPO = Path(__file__).resolve().parents[1]
SETTINGS = {f"RICORDA_{name.upper()}" for name in Settings.model_fields}


def _stages(dockerfile: str) -> list[str]:
    joined = dockerfile.replace("\\\n", " ")
    return re.split(r"^FROM .*$", joined, flags=re.MULTILINE)[1:]


def test_dockerfile_is_multi_stage_non_root_with_a_volume_and_a_healthcheck() -> None:
    text = (REPO / "Dockerfile").read_text()
    stages = _stages(text)
    assert len(stages) == 2
    build, final = stages
    assert "build-essential" in build and "pip wheel" in build
    assert not re.search(r"apt-get install|build-essential|gcc|cmake", final)  # no compiler
    assert "--no-index" in final  # installs the wheels built above, nothing compiled here
    user = re.search(r"^USER (\S+)", final, re.MULTILINE)
    assert user and user.group(1) not in ("root", "0")
    assert re.search(r'^VOLUME \["/data"\]', final, re.MULTILINE)
    assert "RICORDA_DATA_DIR=/data" in final
    assert re.search(r"^HEALTHCHECK .*/healthz", final, re.MULTILINE)
    assert '"ricorda"' in re.search(r"^ENTRYPOINT (.*)$", final, re.MULTILINE).group(1)
    assert set(re.findall(r"RICORDA_[A-Z0-9_]+", text)) <= SETTINGS


def test_compose_has_postgres_chroma_two_replicas_and_a_proxy() -> None:
    compose = yaml.safe_load((REPO / "compose.yaml").read_text())
    services = compose["services"]
    assert {"postgres", "chroma", "ricorda-1", "ricorda-2", "proxy"} <= set(services)
    for name in ("ricorda-1", "ricorda-2"):
        replica = services[name]
        env = replica["environment"]
        assert env["RICORDA_DATABASE_URL"].startswith("postgresql://")
        assert "@postgres:5432/" in env["RICORDA_DATABASE_URL"]
        assert env["RICORDA_CHROMA_URL"] == "http://chroma:8000"
        assert set(env) <= SETTINGS
        assert replica["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert any(v.endswith(":/data") for v in replica["volumes"])
    assert services["ricorda-1"]["volumes"] != services["ricorda-2"]["volumes"]
    proxy = services["proxy"]
    mounted = [v.split(":")[0] for v in proxy["volumes"]]
    assert "./deploy/Caddyfile" in mounted
    caddy = (REPO / "deploy" / "Caddyfile").read_text()
    env = services["ricorda-1"]["environment"]
    assert f"ricorda-1:{env['RICORDA_TELEGRAM_WEBHOOK_PORT']}" in caddy
    assert f"ricorda-2:{env['RICORDA_SLACK_PORT']}" in caddy
    teams = re.search(r"handle /api/messages \{(.*?)\n\t\}", caddy, re.S)  # Teams' endpoint
    assert teams and f"ricorda-1:{env['RICORDA_TEAMS_PORT']}" in teams.group(1)
    assert f"ricorda-2:{env['RICORDA_TEAMS_PORT']}" in teams.group(1)
    assert caddy.count("health_uri /healthz") == 3 and "health_port 9108" in caddy
    dockerfile = (REPO / "Dockerfile").read_text()
    exposed = re.search(r"^EXPOSE (.*)$", dockerfile, re.MULTILINE).group(1).split()
    assert {env["RICORDA_TEAMS_PORT"], env["RICORDA_SLACK_PORT"],
            env["RICORDA_TELEGRAM_WEBHOOK_PORT"]} <= set(exposed)
    assert re.search(r"^ARG EXTRAS=.*\ball\b", dockerfile, re.MULTILINE)  # every platform's SDK


def test_systemd_unit() -> None:
    unit = configparser.ConfigParser(strict=True, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(REPO / "deploy" / "ricorda.service")
    service = unit["Service"]
    assert service["ExecStart"].endswith("ricorda serve")
    assert service["ExecStartPre"].endswith("ricorda migrate")
    assert service["User"] not in ("root", "0")
    assert service["RestartPreventExitStatus"] == "2"  # a configuration error is not retried
    assert "RICORDA_DATA_DIR=/var/lib/ricorda" in service["Environment"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    analyze = shutil.which("systemd-analyze")
    if analyze:  # its only complaint here may be the not-yet-installed /opt/ricorda/venv
        done = subprocess.run([analyze, "verify", str(REPO / "deploy" / "ricorda.service")],
                              capture_output=True, text=True, timeout=60)
        problems = [ln for ln in done.stderr.splitlines()
                    if ln.strip() and "/opt/ricorda/venv/bin/ricorda is not executable" not in ln]
        assert problems == []


@pytest.mark.postgres
def test_the_images_command_line_serves_two_replicas_here() -> None:
    if chroma_cli() is None:
        pytest.skip("the chroma CLI is not installed")
    done = subprocess.run([sys.executable, str(REPO / "deploy" / "try_image.py")], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "replica 1: /healthz ok" in done.stdout and "replica 2: /healthz ok" in done.stdout
