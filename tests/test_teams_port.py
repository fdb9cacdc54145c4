"""Teams' side of the chat flows that only show while an answer is worked out, against the fake
Bot Connector on 127.0.0.1 (tests/fake_teams.py): the real TeamsBot and Connector (the SDK's
ApiClient), with a core that answers slowly, so what a user sees meanwhile can be asserted
without timing anything."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from adapters.teams import TeamsBot, TeamsServices
from adapters.teams.connector import Connector
from core.chat.callback_token import CallbackSigner, derive_key
from core.contracts.types import Answer, Line, Request, Route
from tests.fake_teams import ACCESS, FakeTeams, text_of
from tests.test_charts import MemoryTurns, Verdicts


@pytest.fixture
def fake() -> Iterator[FakeTeams]:
    teams = FakeTeams().start()
    yield teams
    teams.stop()


class SlowCore:
    """Answers once the test lets it: until then the bot is "working"."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def __call__(self, request: Request) -> Answer:
        assert self.release.wait(60), "the test never released the answer"
        return Answer(turn_id="turn-1", route=Route.STRUCTURED, served_by="planner",
                      text="Revenue was 1.2bn.", language="en", succeeded=True,
                      segments=[Line("fact", "Revenue was 1.2bn.")])


async def _connector_token() -> str:
    return ACCESS  # what the fake tenant would have issued (tests/test_teams_tenant.py)


def test_typing_shows_while_a_slow_answer_is_worked_out(
        fake: FakeTeams) -> None:
    core = SlowCore()
    services = TeamsServices(ask=core, feedback=Verdicts(), admin=None,  # type: ignore[arg-type]
                             turns=MemoryTurns(),  # type: ignore[arg-type]
                             signer=CallbackSigner(derive_key(None, "teams-test")),
                             typing_delay=0.0)
    bot = TeamsBot(services, Connector(_connector_token))  # type: ignore[arg-type]
    question = fake.message("a:typing", "aad-user-1", "What was revenue in FY2024?")

    async def scenario() -> None:
        handled = asyncio.ensure_future(bot.handle(question))
        # "typing…" reaches the conversation before any answer does
        await asyncio.to_thread(fake.wait_for, lambda: fake.typing, 30)
        assert fake.messages("a:typing") == []
        core.release.set()
        await handled
        answer = fake.messages("a:typing")[0]
        assert "Revenue was 1.2bn." in text_of(answer)
        assert answer["replyToId"] == question["id"]  # in the question's thread

    try:
        asyncio.run(scenario())
    finally:
        services.close()
