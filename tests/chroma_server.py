"""A Chroma server (`chroma run`) on 127.0.0.1 for tests that need one shared vector store.

The test that starts it stops it; when the `chroma` CLI is missing or does not come up, the
caller skips with the reason this module gives.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.loopback import free_port, stop_process


def chroma_cli() -> str | None:
    """The `chroma` executable next to this interpreter, else on PATH."""
    local = Path(sys.executable).with_name("chroma")
    return str(local) if local.exists() else shutil.which("chroma")


class ChromaServer:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.port = free_port()
        self.log = path.parent / f"chroma-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> ChromaServer:
        """Start and wait for the heartbeat; RuntimeError (with the reason) when it cannot."""
        cli = chroma_cli()
        if cli is None:
            raise RuntimeError("the chroma CLI is not installed")
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [cli, "run", "--path", str(self.path), "--host", "127.0.0.1",
                 "--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"chroma run did not start: {self.log.read_text()[-500:]}")

    def stop(self) -> None:
        stop_process(self.proc, grace=10)
        self.proc = None
