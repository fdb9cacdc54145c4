"""The local console adapter: the no-credentials way to try everything ricorda does.

Options are shown numbered; typing a number re-runs the last question with that slot fixed,
exactly as a button tap does on Telegram or Slack.
"""

from __future__ import annotations

import datetime as dt
import re
import sys
import threading
from collections.abc import Callable
from typing import Protocol, TextIO

from core.catalog.lookup import say
from core.catalog.presentation import present, sources_heading
from core.contracts.thinking import while_thinking
from core.contracts.types import Answer, Request
from core.language import detect_language

PROMPT = "you> "
QUIT = {"/quit", "/exit", "quit", "exit", ":q"}


class AnswersQuestions(Protocol):
    def answer(self, request: Request) -> Answer: ...


# What a terminal would obey rather than show: C0 controls but tab and newline (ESC starts
# ANSI/OSC sequences: colours, cursor moves, window titles, clipboard writes), DEL, C1 controls
# (CSI and OSC in one byte), and the bidirectional overrides that reorder what is shown.
_TERMINAL_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """`text` as a terminal may print it: every control character is shown as an escape
    (`\\x1b[31m` prints as text), so a document or a question cannot drive the operator's
    terminal through `ricorda ask`, `ricorda chat` or a listing."""
    return _TERMINAL_UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def render_answer(answer: Answer, *, footer: bool = True) -> str:
    """The answer as terminal text, from the same parts as every chat: body, numbered sources,
    options numbered under their slot's header, and (for the operator) the serving footer;
    control characters escaped."""
    shown = present(answer)
    lines = [shown.body]
    if shown.sources:
        lines += ["", sources_heading(answer.language), *shown.sources]
    for group in shown.groups:
        lines.append(group.header)
        lines += [f"  [{index + 1}] {label}" for index, label in group.options]
    if footer:
        lines.append(f"({answer.served_by} · {answer.latency_ms:.1f} ms · turn {answer.turn_id})")
    return terminal_safe("\n".join(lines))


class Spinner:
    """"⠋ Working out how to read your question…" while a model plans: animated on a terminal,
    one line otherwise (a pipe or a file keeps a readable transcript)."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    EVERY = 0.1  # seconds per frame

    def __init__(self, out: TextIO, text: str) -> None:
        self.out, self.text = out, text
        self.animate = bool(getattr(out, "isatty", lambda: False)())
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None or self._stop.is_set():
            return
        if not self.animate:
            self.out.write(self.text + "\n")
            self.out.flush()
            self._stop.set()
            return
        self._thread = threading.Thread(target=self._spin, name="console-spinner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.out.write("\r" + " " * (len(self.text) + 2) + "\r")
            self.out.flush()

    def _spin(self) -> None:
        frame = 0
        while not self._stop.is_set():
            self.out.write(f"\r{self.FRAMES[frame % len(self.FRAMES)]} {self.text}")
            self.out.flush()
            frame += 1
            self._stop.wait(self.EVERY)


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
        request = self._pick(text) or self._resolve(Request(
            text=text, chat=self.chat, user="console", reference_date=self.today()
        ))
        spinner = Spinner(self.stdout, say("thinking", detect_language(text)))
        try:
            with while_thinking(spinner.start):
                answer = self.answerer.answer(request)
        finally:
            spinner.stop()
        if request.text.strip():
            self.last = (request, answer)
        return render_answer(answer)

    def _resolve(self, request: Request) -> Request:
        """A follow-up with what it carries over (core.question.conversation), kept so a number
        typed
        next narrows the resolved question, as a button does on Telegram and Slack."""
        core = getattr(self.answerer, "answerer", self.answerer)  # a pipeline holds one
        resolve = getattr(core, "resolve", None)
        return resolve(request) if callable(resolve) else request

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
