"""Signed button data: what a tap refers to, small enough for Telegram's 64-byte limit.

A button carries `kind:field:field:mac`, the mac a truncated HMAC-SHA256 of the rest. Anyone
can send arbitrary callback data to a bot, so data without a valid mac is treated as an
expired button: it never names a turn, and never changes anything.
"""

from __future__ import annotations

import base64
import hashlib
import hmac

MAX_BYTES = 64  # Telegram's callback_data limit; Slack's action value is far larger
MAC_BYTES = 9  # 72 bits: forging one button takes ~2**71 tries against a rate-limited bot
OPTION = "o"
_SEP = ":"


def derive_key(callback_secret: str | None, fallback_secret: str) -> bytes:
    """The signing key: the configured callback secret, else one derived from the bot token,
    so buttons survive a restart without any extra configuration."""
    if callback_secret:
        return callback_secret.encode()
    return hmac.new(b"ricorda callback key", fallback_secret.encode(), hashlib.sha256).digest()


class CallbackSigner:
    def __init__(self, key: bytes) -> None:
        if not key:
            raise ValueError("a callback signing key must not be empty")
        self._key = key

    def sign(self, kind: str, *fields: str) -> str:
        """`kind:f1:f2:mac`; ValueError when it would not fit or a field contains ':'."""
        parts = [kind, *fields]
        if any(not p or _SEP in p for p in parts):
            raise ValueError("callback fields must be non-empty and free of ':'")
        payload = _SEP.join(parts)
        data = f"{payload}{_SEP}{self._mac(payload)}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data of {len(data.encode())} bytes exceeds {MAX_BYTES}")
        return data

    def verify(self, data: str | None, kind: str) -> list[str] | None:
        """The fields of genuine data of this kind, or None (forged, garbled, other kind)."""
        if not data or len(data) > MAX_BYTES:
            return None
        try:
            size = len(data.encode())
        except UnicodeEncodeError:  # lone surrogates: JSON can carry them, no token has them
            return None
        if size > MAX_BYTES:
            return None
        payload, sep, mac = data.rpartition(_SEP)
        if not sep:
            return None
        if not hmac.compare_digest(mac.encode(), self._mac(payload).encode()):
            return None
        parts = payload.split(_SEP)
        if parts[0] != kind or len(parts) < 2:
            return None
        return parts[1:]

    # -- option taps ---------------------------------------------------------------------

    def encode_option(self, turn_id: str, index: int) -> str:
        if index < 0:
            raise ValueError("option index must not be negative")
        return self.sign(OPTION, turn_id, str(index))

    def decode_option(self, data: str | None) -> tuple[str, int] | None:
        """(turn id, option index) of a genuine option button, else None."""
        fields = self.verify(data, OPTION)
        if fields is None or len(fields) != 2:
            return None
        if not (fields[1].isascii() and fields[1].isdigit()):
            return None
        return fields[0], int(fields[1])

    def _mac(self, payload: str) -> str:
        digest = hmac.new(self._key, payload.encode(), hashlib.sha256).digest()[:MAC_BYTES]
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")
