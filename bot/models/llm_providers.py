"""Chat models behind core's `LLM` Protocol: an in-process GGUF model and an HTTP endpoint.

Both promise the same thing to core: `complete()` returns the reply text or raises
`core.contracts.errors.ModelError` (never a library exception), within the timeout it was given.
Callers (rerank, synthesis) turn that error into an honest fallback.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx

from core.contracts.errors import ConfigError, ModelError
from core.contracts.ports import LLM, ChatMessage
from core.planning.core_lock import ModelBusy

if TYPE_CHECKING:
    from bot.settings.model import Settings

logger = logging.getLogger(__name__)

# A chat completion's body is a few kilobytes; a server sending more is not answering.
MAX_REPLY_BYTES = 1 << 20

# Chat templates that llama-cpp-python silently drops system messages from.
_SYSTEMLESS_FORMATS = frozenset({"gemma"})

# What to use when a GGUF carries no chat template of its own, by `general.architecture`.
_FORMAT_BY_ARCHITECTURE = {
    "gemma": "gemma",
    "gemma2": "gemma",
    "gemma3": "gemma",
    "qwen2": "chatml",
    "qwen3": "chatml",
}


def _as_dicts(messages: Sequence[ChatMessage], *, fold_system: bool) -> list[dict[str, str]]:
    """Messages in OpenAI form; system text moved into the first user turn when needed."""
    out = [{"role": m.role, "content": m.content} for m in messages]
    if not fold_system:
        return out
    system = "\n\n".join(m["content"] for m in out if m["role"] == "system")
    rest = [m for m in out if m["role"] != "system"]
    if system:
        if rest and rest[0]["role"] == "user":
            rest[0] = {"role": "user", "content": f"{system}\n\n{rest[0]['content']}"}
        else:
            rest.insert(0, {"role": "user", "content": system})
    return rest


def _reply_text(body: Any, source: str) -> str:
    """choices[0].message.content of a chat completion, or ModelError when it is not there."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError) as exc:
        raise ModelError(f"{source} returned a reply without choices[0].message.content") from exc
    if not isinstance(content, str):
        raise ModelError(f"{source} returned a non-text message content")
    return content


class LlamaCppLLM:
    """A local GGUF model through llama-cpp-python (extra `llm`).

    The model is loaded in the constructor so a bad path fails at start-up, not on the first
    question. llama.cpp is synchronous and not thread-safe: each call runs in a daemon worker
    thread, one at a time, and the caller stops waiting at the timeout (the worker finishes
    its bounded `max_tokens` in the background and then frees the model for the next call).
    """

    def __init__(
        self,
        model_path: str | Path,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        chat_format: str | None = None,
        *,
        default_timeout: float = 60.0,
        seed: int = 0,
    ) -> None:
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelError(
                "llama-cpp-python is not installed; install ricorda[llm] to use a GGUF model."
            ) from exc
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise ModelError(f"No GGUF model file at {path}.")
        self.name = f"llama-cpp:{path.name}"
        self.default_timeout = default_timeout
        started = time.perf_counter()
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads or os.cpu_count() or 1,
                chat_format=chat_format,
                seed=seed,
                verbose=False,
            )
        except Exception as exc:  # llama-cpp raises ValueError/RuntimeError on a bad file
            raise ModelError(f"Could not load the GGUF model {path}: {exc}") from exc
        self.load_seconds = time.perf_counter() - started
        metadata = getattr(self._llm, "metadata", {}) or {}
        if chat_format is None and "tokenizer.chat_template" not in metadata:
            guessed = _FORMAT_BY_ARCHITECTURE.get(metadata.get("general.architecture", ""))
            if guessed:
                self._llm.chat_format = guessed
        self.chat_format: str = self._llm.chat_format or "chat_template.default"
        self._fold_system = self.chat_format in _SYSTEMLESS_FORMATS
        self._busy = threading.Lock()
        logger.info(
            "LLM: %s loaded in %.1f s, chat format %s, %d threads",
            self.name,
            self.load_seconds,
            self.chat_format,
            n_threads or os.cpu_count() or 1,
        )

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> str:
        timeout = self.default_timeout if timeout is None else timeout
        started = time.monotonic()
        kwargs: dict[str, Any] = {
            "messages": _as_dicts(messages, fold_system=self._fold_system),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": json_schema}

        if not self._busy.acquire(timeout=max(timeout, 0.0)):
            raise ModelError(f"{self.name} is still busy with an earlier request.")
        box: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                box["reply"] = self._llm.create_chat_completion(**kwargs)
            except BaseException as exc:  # reported to the caller below, never lost
                box["error"] = exc
            finally:
                self._busy.release()
                done.set()

        threading.Thread(target=work, name="llama-cpp-call", daemon=True).start()
        if not done.wait(max(timeout - (time.monotonic() - started), 0.0)):
            raise ModelError(f"{self.name} did not answer within {timeout:g} s.")
        if "error" in box:
            raise ModelError(f"{self.name} failed: {box['error']}") from box["error"]
        return _reply_text(box["reply"], self.name)


class OpenAICompatibleLLM:
    """Any server speaking OpenAI's `/v1/chat/completions`: llama.cpp server, vLLM, others.

    `transport` lets tests and embedders inject an httpx transport. The API key only ever goes
    into the Authorization header; it is not logged and not part of `repr`.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 60.0,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        base = base_url.rstrip("/")
        self.url = (
            f"{base}/chat/completions" if base.endswith("/v1") else f"{base}/v1/chat/completions"
        )
        self.model = model
        self.name = f"openai-compatible:{model}"
        self.default_timeout = timeout
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, transport=transport)

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(url={self.url!r}, model={self.model!r})"

    def close(self) -> None:
        self._client.close()

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> str:
        timeout = self.default_timeout if timeout is None else timeout
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": _as_dicts(messages, fold_system=False),
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if json_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "ricorda_reply", "schema": json_schema, "strict": True},
            }
        # httpx's timeout bounds each read, not the call: a server sending one byte a second
        # would hold the caller for as long as it likes. The request runs on its own thread and
        # the caller stops waiting at the deadline; the thread stops reading at it too.
        deadline = time.monotonic() + timeout
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def work() -> None:
            try:
                outcome["reply"] = self._post(payload, timeout, deadline)
            except BaseException as exc:  # handed to the caller, who raises it
                outcome["error"] = exc
            finally:
                done.set()

        threading.Thread(target=work, name="ricorda-llm-request", daemon=True).start()
        if not done.wait(timeout):
            raise ModelError(f"{self.name} did not answer within {timeout:g} s.")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["reply"]

    def _post(self, payload: dict[str, Any], timeout: float, deadline: float) -> str:
        late = f"{self.name} did not answer within {timeout:g} s."
        body = bytearray()
        try:
            with self._client.stream("POST", self.url, json=payload, timeout=timeout) as response:
                for chunk in response.iter_bytes():
                    body += chunk
                    if time.monotonic() > deadline:
                        raise ModelError(late)
                    if len(body) > MAX_REPLY_BYTES:
                        raise ModelError(f"{self.name} sent a reply over {MAX_REPLY_BYTES} bytes.")
        except httpx.TimeoutException as exc:
            raise ModelError(late) from exc
        except httpx.HTTPError as exc:
            raise ModelError(f"{self.name} is unreachable at {self.url}: {exc}") from exc
        if response.status_code >= 400:
            text = body[:200].decode("utf-8", "replace")
            raise ModelError(f"{self.name} answered HTTP {response.status_code}: {text}")
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ModelError(f"{self.name} answered with a body that is not JSON.") from exc
        return _reply_text(data, self.name)


class OutsideCoreLock:
    """An LLM whose every call runs outside core's lock (`CoreLock.outside`), within its model
    slots: under `serve` a "why" answer's synthesis or rerank thinks for seconds, as the model
    planner does, and another chat's question, which needs no model, is answered meanwhile.

    With every slot taken the call fails at once with `ModelError`, so the caller's honest
    fallback (the extractive answer, the fused order) answers instead of waiting in line. A
    caller that lets go of the lock itself (the model planner) finds it let go already: the
    slot is taken once."""

    def __init__(self, llm: LLM, outside: Callable[[], AbstractContextManager[None]]) -> None:
        self._llm = llm
        self._outside = outside
        self.name = llm.name

    def __getattr__(self, attr: str) -> Any:  # load_seconds, chat_format, close, ...
        return getattr(self._llm, attr)

    def __repr__(self) -> str:
        return f"OutsideCoreLock({self._llm!r})"

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> str:
        try:
            with self._outside():
                return self._llm.complete(messages, max_tokens=max_tokens,
                                          temperature=temperature, json_schema=json_schema,
                                          timeout=timeout)
        except ModelBusy as exc:
            raise ModelError(f"{self.name}: every model slot is taken") from exc


def build_llm(
    settings: Settings, *, outside: Callable[[], AbstractContextManager[None]] | None = None
) -> LLM | None:
    """The LLM the settings ask for (`RICORDA_LLM` = none | llama-cpp | openai), or None.
    `outside`: what each call runs in (a serving process's `CoreLock.outside`)."""
    llm = _build_llm(settings)
    return llm if llm is None or outside is None else OutsideCoreLock(llm, outside)


def _build_llm(settings: Settings) -> LLM | None:
    choice = settings.llm.strip().lower()
    if choice in ("", "none", "off"):
        return None
    if choice in ("llama-cpp", "llama_cpp", "llamacpp"):
        if not settings.llm_model_path:
            raise ConfigError("RICORDA_LLM=llama-cpp needs RICORDA_LLM_MODEL_PATH (a .gguf file)")
        return LlamaCppLLM(
            settings.llm_model_path,
            n_threads=settings.llm_threads,
            default_timeout=settings.llm_timeout_s,
        )
    if choice in ("openai", "http"):
        if not settings.llm_base_url:
            raise ConfigError("RICORDA_LLM=openai needs RICORDA_LLM_BASE_URL (e.g. http://host:8080)")
        key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
        return OpenAICompatibleLLM(
            settings.llm_base_url, settings.llm_model, api_key=key, timeout=settings.llm_timeout_s
        )
    raise ConfigError(f"unknown RICORDA_LLM={settings.llm!r}: use none, llama-cpp or openai")
