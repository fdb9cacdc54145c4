"""Tell whoever is waiting for an answer that a model has started to plan it.

An adapter sets a callback around one request (`while_thinking`); the answerer calls
`started()` just before it asks the planning model, from whatever thread it runs on. Telegram
then shows "typing…" at once, Slack posts a placeholder the answer replaces, the console spins.
A context variable, not a parameter: the request passes through layers that need not know.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Callable, Iterator

log = logging.getLogger("ricorda.thinking")

_ON_THINKING: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "ricorda_on_thinking", default=None
)


@contextlib.contextmanager
def while_thinking(callback: Callable[[], None]) -> Iterator[None]:
    """Within this block (and in a context copied from it), `started()` calls `callback`."""
    token = _ON_THINKING.set(callback)
    try:
        yield
    finally:
        _ON_THINKING.reset(token)


def started() -> None:
    """A model starts planning: tell the waiting adapter; its failure never costs the answer."""
    callback = _ON_THINKING.get()
    if callback is None:
        return
    try:
        callback()
    except Exception:
        log.exception("the thinking callback failed; ignored")
