"""How an answer goes out, for every platform: the chart first (when the answer has one), then
the answer fitted to the platform's message limit, then the files a table too big for one
message became. An adapter says how its markup measures (`count`, `too_big`) and sends each
piece; the order, the budget of messages and what is cut are decided here, once.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Protocol

from core.catalog.presentation import Presentation
from core.chat.oversized import Attachment, fit
from core.contracts.types import Answer, Table

MessageId = str | int
Draw = Callable[[Answer], Awaitable[tuple[Table, bytes] | None]]  # adapters.charts.chart_for


class AnswerSender(Protocol):
    """The pieces of an answer in one platform's markup, sent where the reply goes."""

    def count(self, answer: Answer, shown: Presentation) -> int:
        """How many messages `shown` takes in this platform's markup."""
        ...

    def too_big(self, table: Table) -> bool:
        """A table whose grid alone would not fit in one message."""
        ...

    async def send_chart(self, table: Table, png: bytes) -> tuple[MessageId | None, bool]:
        """The chart as an image: (its message id, or None when refused; whether it shows the
        table too, as Telegram's caption does, so the text need not repeat it)."""
        ...

    async def send_messages(self, answer: Answer, shown: Presentation) -> Sequence[MessageId]:
        """The answer's messages, in order, the option buttons under the last; their ids."""
        ...

    async def send_file(self, attachment: Attachment) -> MessageId | None:
        """A table as a CSV file; None when the platform refused it (logged)."""
        ...


async def deliver_answer(sender: AnswerSender, answer: Answer, shown: Presentation, *,
                         limit: int, draw: Draw | None = None,
                         chart: bool = True) -> list[MessageId]:
    """Chart, messages, files: at most `limit` messages in all; the ids of those sent."""
    sent: list[MessageId] = []
    drawn = await draw(answer) if draw is not None and chart else None
    if drawn is not None:
        table, png = drawn
        image, with_table = await sender.send_chart(table, png)
        if image is not None:
            sent.append(image)
            if with_table:
                shown = replace(shown, segments=tuple(s for s in shown.segments
                                                      if s is not table))
    room = limit - len(sent)

    def fitted(budget: int) -> tuple[Presentation, list[Attachment]]:
        return fit(shown, language=answer.language, limit=max(1, budget),
                   count=lambda p: sender.count(answer, p), too_big=sender.too_big)

    fitted_shown, files = fitted(room)
    if files:  # each file is a message too
        fitted_shown, files = fitted(room - len(files))
    sent += await sender.send_messages(answer, fitted_shown)
    for attachment in files:
        document = await sender.send_file(attachment)
        if document is not None:
            sent.append(document)
    return sent
