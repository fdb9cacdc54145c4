"""What one chat platform gives `ricorda serve`: a runner (the list of them is
bot.serve.run.RUNNERS).

`ricorda serve` takes every runner whose `configured(settings)` is true and then, in this order:

1. `check(app)` of every runner: its settings and its ports, locally, no network. A mistake is a
   ConfigError naming the variable, before anything has started;
2. `confirm(app)` of every runner: the platform is asked once whether it accepts the tokens
   (a refusal is a ConfigError; a platform that cannot be told apart from a network problem
   is the runner's call);
3. the shared parts (health and metrics server, warm-up, nightly maintenance timer);
4. `serve(app, core_worker, on_main_thread)` of every runner: each blocks serving until the
   process is stopped. All but one run on daemon threads; the one on the main thread owns the
   process's signals (SIGINT/SIGTERM). Every core call goes to the one `core_worker` thread
   (core is not written for concurrent use).

A new platform adds one module with its Runner and one entry in bot.serve.run.RUNNERS.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.contracts.errors import ConfigError

if TYPE_CHECKING:
    from bot.settings.model import Settings
    from bot.wiring.build import App


@dataclass(frozen=True)
class Runner:
    """One chat platform as `ricorda serve` runs it."""

    name: str  # "telegram": log lines and thread names
    switch: str  # the variable that turns the platform on (named when none is configured)
    configured: Callable[[Settings], bool]
    check: Callable[[App], None]  # settings and ports, no network; ConfigError
    confirm: Callable[[App], None]  # the platform asked about the tokens, once
    serve: Callable[[App, Executor, bool], None]  # (app, core_worker, on_main_thread): blocks
    # True when serving needs the main thread (its library installs signal handlers there);
    # at most one runner in the list may say so
    needs_main_thread: bool = False


def check_port_free(host: str, port: int, variable: str) -> None:
    """ConfigError now, naming the variable, when `port` is taken: not a traceback later."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ConfigError(
                f"{variable}={port} cannot be used on {host} ({exc.strerror}): stop what "
                f"listens there or set {variable} to a free port"
            ) from None
