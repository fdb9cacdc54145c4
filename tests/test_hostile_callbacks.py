"""Forged and garbled button data: anyone can send any callback data to a bot, so decoding
never raises, and nothing but a token this key signed is ever accepted."""

from __future__ import annotations

import hashlib
import hmac
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from core.chat.callback_token import MAX_BYTES, OPTION, CallbackSigner, derive_key
from tests.cpu_budget import within

SIGNER = CallbackSigner(derive_key(None, "123456:bot-token"))
OTHER = CallbackSigner(derive_key("another secret", "123456:bot-token"))

turn_ids = st.text(st.characters(codec="ascii", exclude_characters=":"), min_size=1, max_size=16)
indexes = st.integers(0, 999)
garbage = st.one_of(
    st.none(),
    st.text(max_size=200),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
    st.binary(max_size=100).map(lambda b: b.decode("utf-8", "surrogateescape")),
    st.text(max_size=100).map(lambda t: f"o:{t}"),
)


@settings(max_examples=300, deadline=None)
@given(garbage)
def test_garbage_is_rejected_without_raising(data: str | None) -> None:
    start = time.thread_time()  # CPU time against a load-scaled bound (tests/cpu_budget.py)
    assert SIGNER.decode_option(data) is None
    assert SIGNER.verify(data, OPTION) is None
    assert SIGNER.verify(data, "f") is None
    assert within(time.thread_time() - start, 0.05)


@settings(max_examples=150, deadline=None)
@given(turn_ids, indexes, st.data())
def test_any_single_byte_change_is_rejected(turn: str, index: int, data: st.DataObject) -> None:
    token = SIGNER.encode_option(turn, index)
    assert SIGNER.decode_option(token) == (turn, index)
    raw = bytearray(token.encode())
    pos = data.draw(st.integers(0, len(raw) - 1), label="position")
    flip = data.draw(st.integers(1, 255), label="xor")
    raw[pos] ^= flip
    forged = raw.decode("utf-8", "replace")
    assert SIGNER.decode_option(forged) is None


@settings(max_examples=100, deadline=None)
@given(turn_ids, indexes, st.text(max_size=5))
def test_truncated_or_extended_tokens_are_rejected(turn: str, index: int, tail: str) -> None:
    token = SIGNER.encode_option(turn, index)
    for forged in (token[:-1], token[1:], token + tail if tail else token + "A",
                   token.rsplit(":", 1)[0] + ":", token.replace("o:", "f:", 1)):  # fmt: skip
        assert SIGNER.decode_option(forged) is None, forged


@settings(max_examples=100, deadline=None)
@given(turn_ids, indexes)
def test_another_key_and_hand_built_macs_are_rejected(turn: str, index: int) -> None:
    assert SIGNER.decode_option(OTHER.encode_option(turn, index)) is None
    payload = f"o:{turn}:{index}"
    sha = hmac.new(b"guess", payload.encode(), hashlib.sha256).hexdigest()[:12]
    assert SIGNER.decode_option(f"{payload}:{sha}") is None


@settings(max_examples=100, deadline=None)
@given(turn_ids, st.sampled_from(["-1", "1e3", "٣", "³", " 1", "0x1", "", "99999999999"]))
def test_only_plain_ascii_indexes_decode_even_when_signed(turn: str, index: str) -> None:
    """A validly signed token with a non-numeric index (only reachable by a key leak or a bug)
    still decodes to nothing rather than raising or to a surprising option."""
    try:
        token = SIGNER.sign(OPTION, turn, index)
    except ValueError:
        return  # empty field or too long: cannot even be signed
    decoded = SIGNER.decode_option(token)
    if decoded is not None:
        assert index.isascii() and index.isdigit() and decoded == (turn, int(index))


def test_oversized_data_is_rejected_before_any_work() -> None:
    huge = "o:" + "a" * 10_000_000 + ":mac"
    start = time.perf_counter()
    assert SIGNER.decode_option(huge) is None
    assert time.perf_counter() - start < 0.2
    assert len(SIGNER.encode_option("f" * 16, 999).encode()) <= MAX_BYTES
