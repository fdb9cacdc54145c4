"""The local console adapter: the no-credentials way to try everything ricorda does.

Options are shown numbered; typing a number re-runs the last question with that slot fixed,
exactly as a button tap does on Telegram or Slack.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from typing import Protocol, TextIO

from core.types import Answer, Request

PROMPT = "you> "
QUIT = {"/quit", "/exit", "quit", "exit", ":q"}


class AnswersQuestions(Protocol):
    def answer(self, request: Request) -> Answer: ...


def render_answer(answer: Answer, *, footer: bool = True) -> str:
    lines = [answer.text]
    for i, option in enumerate(answer.options, start=1):
        lines.append(f"  [{i}] {option.label}")
    if footer:
        lines.append(f"({answer.served_by} · {answer.latency_ms:.1f} ms · turn {answer.turn_id})")
    return "\n".join(lines)


class ConsoleChat:
    def __init__(
        self,
        answerer: AnswersQuestions,
        *,
        chat: str = "console:local",
        today: Callable[[], dt.date] = dt.date.today,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
    ) -> None:
        self.answerer = answerer
        self.chat = chat
        self.today = today
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.last: tuple[Request, Answer] | None = None

    def run(self) -> None:
        self._say(
            "ricorda console — ask a question, type an option's number to narrow, /quit to leave."
        )
        while True:
            self.stdout.write(PROMPT)
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:  # end of input
                self._say("")
                return
            text = line.strip()
            if text in QUIT:
                return
            if not text:
                continue
            self._say(self.handle(text))

    def handle(self, text: str) -> str:
        """One line in, the rendered answer out."""
        request = self._pick(text) or Request(
            text=text, chat=self.chat, user="console", reference_date=self.today()
        )
        answer = self.answerer.answer(request)
        if request.text.strip():
            self.last = (request, answer)
        return render_answer(answer)

    def _pick(self, text: str) -> Request | None:
        """A bare number picks an option of the previous answer."""
        if not text.isdigit() or self.last is None:
            return None
        request, answer = self.last
        index = int(text) - 1
        if not 0 <= index < len(answer.options):
            return None
        option = answer.options[index]
        fixed = {**request.fixed_slots, option.slot: option.value}
        return Request(
            text=request.text,
            chat=self.chat,
            user="console",
            reference_date=request.reference_date,
            fixed_slots=fixed,
            parent_turn=answer.turn_id,
        )

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()
