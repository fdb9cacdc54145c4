"""Run the container's command line here, without a container runtime.

Reads the Dockerfile's ENV, ENTRYPOINT and CMD and the environment compose.yaml gives replica
`ricorda-1`, points its hosts at this machine (PostgreSQL at 127.0.0.1:5432, a `chroma run`
started here, a fake Telegram Bot API), then runs exactly that command line, twice at once (the
two replicas, each with its own data dir), and waits for both /healthz to say ok. What this does
not run: the image build, the non-root user, the volume, Caddy, and the network between
containers.

    python deploy/try_image.py [--database-url postgresql://postgres@127.0.0.1:5432/test]

Exit 0 when both replicas became ready; the output of each is printed on failure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def dockerfile_command(path: Path) -> tuple[dict[str, str], list[str]]:
    """The final stage's ENV and ENTRYPOINT + CMD (exec form)."""
    text = path.read_text().replace("\\\n", " ")
    final = re.split(r"^FROM .*$", text, flags=re.MULTILINE)[-1]
    env: dict[str, str] = {}
    entry: list[str] = []
    cmd: list[str] = []
    for line in final.splitlines():
        if line.startswith("ENV "):
            for pair in shlex.split(line[4:]):
                key, _, value = pair.partition("=")
                env[key] = value
        elif line.startswith("ENTRYPOINT "):
            entry = json.loads(line[len("ENTRYPOINT "):])
        elif line.startswith("CMD "):
            cmd = json.loads(line[len("CMD "):])
    return env, entry + cmd


def compose_environment(path: Path, service: str, values: dict[str, str]) -> dict[str, str]:
    """The service's environment with ${VAR:?...} filled from `values`."""
    spec = yaml.safe_load(path.read_text())["services"][service]
    out = {}
    for key, value in spec.get("environment", {}).items():
        out[key] = re.sub(r"\$\{(\w+)(:\?[^}]*)?\}", lambda m: values[m.group(1)], str(value))
    return out


def wait_healthy(port_file: Path, proc: subprocess.Popen[bytes], timeout: float) -> int:
    """Wait for the replica's /healthz to say 200; its port (read from its log)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with {proc.returncode}")
        found = re.search(r"health and metrics on http://[\d.]+:(\d+)/", port_file.read_text())
        if found:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/healthz",
                                            timeout=2) as response:
                    if response.status == 200:
                        return int(found.group(1))
            except (urllib.error.URLError, OSError):
                pass
        time.sleep(0.3)
    raise RuntimeError("not healthy in time")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--timeout", type=float, default=120)
    args = parser.parse_args()

    from tests.chroma_server import ChromaServer
    from tests.conftest import fresh_postgres_schema
    from tests.fake_telegram import TOKEN, FakeTelegram
    from tests.loopback import free_port, stop_process

    image_env, command = dockerfile_command(REPO / "Dockerfile")
    assert command[0] == "ricorda", command
    work = Path(tempfile.mkdtemp(prefix="ricorda-try-image-"))
    chroma = ChromaServer(work / "chroma").start()
    telegram = FakeTelegram().start()
    procs: list[tuple[subprocess.Popen[bytes], Path]] = []
    os.environ.setdefault("RICORDA_TEST_POSTGRES_URL",
                          args.database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with fresh_postgres_schema("ricorda_try") as database_url:
            values = {"POSTGRES_PASSWORD": "unused-locally", "RICORDA_PUBLIC_HOST": "bot.test"}
            replica = compose_environment(REPO / "compose.yaml", "ricorda-1", values)
            replica["RICORDA_DATABASE_URL"] = database_url  # the host `postgres`, here
            replica["RICORDA_CHROMA_URL"] = chroma.url  # the host `chroma`, here
            base = {k: v for k, v in os.environ.items() if not k.startswith("RICORDA_")}
            for n in (1, 2):
                data = work / f"data-{n}"
                env = {**base, **image_env, **replica, "RICORDA_DATA_DIR": str(data),
                       "RICORDA_TELEGRAM_TOKEN": TOKEN, "RICORDA_TELEGRAM_API_URL": telegram.url,
                       "RICORDA_TELEGRAM_WEBHOOK_SECRET": "try-image-secret",
                       "RICORDA_TELEGRAM_WEBHOOK_LISTEN": "127.0.0.1",
                       "RICORDA_TELEGRAM_WEBHOOK_PORT": str(free_port()),
                       "RICORDA_METRICS_HOST": "127.0.0.1", "RICORDA_METRICS_PORT": "0",
                       "RICORDA_EMBEDDER": "hashing"}
                if n == 1:  # the knowledge base, loaded once into the shared stores
                    subprocess.run([sys.executable, "-m", "bot", "demo", "--no-chat"], env=env,
                                   check=True, capture_output=True, timeout=300)
                log = work / f"replica-{n}.log"
                argv = [sys.executable, "-m", "bot", *command[1:]]  # `ricorda serve`
                print(f"replica {n}: {' '.join(['ricorda', *command[1:]])}  "
                      f"(database {replica['RICORDA_DATABASE_URL'].split('?')[0]}, chroma "
                      f"{chroma.url})")
                with log.open("wb") as out:
                    procs.append((subprocess.Popen(argv, env=env, stdout=out,
                                                   stderr=subprocess.STDOUT), log))
            for n, (proc, log) in enumerate(procs, 1):
                try:
                    port = wait_healthy(log, proc, args.timeout)
                except RuntimeError as exc:
                    print(f"replica {n} failed: {exc}\n{log.read_text()[-4000:]}")
                    return 1
                print(f"replica {n}: /healthz ok on port {port}")
            return 0
    finally:
        for proc, _ in procs:
            stop_process(proc)
        telegram.stop()
        chroma.stop()


if __name__ == "__main__":
    sys.exit(main())
