"""What a chat adapter needs from ricorda besides `ask`: feedback, the turn/message map and
the delivery log. Declared once here so every platform adapter types against the same seams."""

from __future__ import annotations

from typing import Any, Protocol

from core.ports import TurnRecord


class FeedbackPort(Protocol):
    def record(self, turn_id: str, user: str, verdict: str, *, via: str) -> Any: ...

    def withdraw(self, turn_id: str, user: str) -> Any: ...


class TurnLookup(Protocol):
    def get_turn(self, turn_id: str) -> TurnRecord | None: ...

    def map_message(self, platform: str, chat: str, message_id: str | int,
                    turn_id: str) -> None: ...

    def turn_for_message(self, platform: str, chat: str, message_id: str | int) -> str | None: ...


class DeliveryLog(Protocol):
    def first_time(self, platform: str, delivery_id: str | int) -> bool: ...
