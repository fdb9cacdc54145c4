"""Plumbing every end-to-end test shares: free ports, stopping the processes a test started,
waiting on a fake server's condition until the bot has done something, and posting to a bot's
endpoint that is about to come up."""

from __future__ import annotations

import socket
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A loopback port free now and never handed out before in this process: two servers asked
    for in a row must not get the same port because the first had not bound it yet."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def stop_process(proc: subprocess.Popen[Any] | None, *, grace: float = 15.0) -> None:
    """Terminate, then kill if it does not leave within `grace` seconds; never leave it running."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def wait_on(cond: threading.Condition, predicate: Callable[[], Any], timeout: float) -> Any:
    """Block until `predicate()` is truthy, re-checked whenever `cond` is notified (and every
    0.1 s); its value. The predicate runs without the lock, so it may call the fake's API."""
    deadline = time.monotonic() + timeout
    with cond:
        while True:
            cond.release()
            try:
                value = predicate()
            finally:
                cond.acquire()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the bot did not do what the test waited for")
            cond.wait(min(left, 0.1))


def post_when_up(url: str, body: str, headers: dict[str, str], *, within: float = 15.0
                 ) -> httpx.Response:
    """POST once the server listens (a webhook server starts a moment after setWebhook)."""
    deadline = time.monotonic() + within
    while True:
        try:
            return httpx.post(url, content=body, headers=headers, timeout=10)
        except httpx.ConnectError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
