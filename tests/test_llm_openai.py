"""OpenAICompatibleLLM against a mocked endpoint (respx): replies, failures, what users see."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
import respx

from bot.models.llm_providers import OpenAICompatibleLLM
from core.contracts.errors import ModelError
from core.contracts.ports import ChatMessage, Chunk, ScoredChunk
from core.documents.narrative import answer_narrative
from core.documents.rerank import listwise_rerank

URL = "http://llm.test:8080/v1/chat/completions"
SECRET = "sk-very-secret-key"
MESSAGES = [ChatMessage("system", "be brief"), ChatMessage("user", "hi")]


def _reply(content: str) -> dict:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}


def _llm(**kwargs) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM("http://llm.test:8080", "qwen", api_key=SECRET, timeout=5, **kwargs)


SNIPPETS = [
    ScoredChunk(Chunk("c1", "china.md", "section=China", "Revenue fell because demand fell."), 0.9),
    ScoredChunk(Chunk("c2", "eu.md", "para=2", "Europe grew thanks to new products."), 0.5),
]


@respx.mock
def test_success_sends_an_openai_request_and_returns_the_text() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=_reply("hello [1]")))
    assert _llm().complete(MESSAGES, max_tokens=20, temperature=0.0) == "hello [1]"
    request = route.calls.last.request
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    body = json.loads(request.content)
    assert body["model"] == "qwen" and body["max_tokens"] == 20
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "hi"},
    ]
    assert "response_format" not in body


@respx.mock
def test_json_schema_is_sent_as_a_structured_output_request() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=_reply('{"order":[1]}')))
    schema = {"type": "object", "properties": {"order": {"type": "array"}}}
    _llm().complete(MESSAGES, json_schema=schema)
    body = json.loads(route.calls.last.request.content)
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == schema


@pytest.mark.parametrize("base", ["http://llm.test:8080/", "http://llm.test:8080/v1"])
@respx.mock
def test_base_url_with_or_without_v1(base: str) -> None:
    respx.post(URL).mock(return_value=httpx.Response(200, json=_reply("ok")))
    assert OpenAICompatibleLLM(base, "m").complete(MESSAGES) == "ok"


@respx.mock
def test_no_api_key_sends_no_authorization_header() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=_reply("ok")))
    OpenAICompatibleLLM("http://llm.test:8080", "m").complete(MESSAGES)
    assert "Authorization" not in route.calls.last.request.headers


@pytest.mark.parametrize(
    "response, match",
    [
        (httpx.Response(500, text="upstream exploded"), "HTTP 500"),
        (httpx.Response(200, text="<html>not json</html>"), "not JSON"),
        (httpx.Response(200, json={"choices": []}), "without choices"),
        (httpx.Response(200, json={"error": "nope"}), "without choices"),
        (httpx.Response(200, json=_reply(None)), "non-text"),  # type: ignore[arg-type]
    ],
    ids=["500", "not-json", "no-choices", "error-body", "null-content"],
)
@respx.mock
def test_failures_become_model_errors(response: httpx.Response, match: str) -> None:
    respx.post(URL).mock(return_value=response)
    with pytest.raises(ModelError, match=match):
        _llm().complete(MESSAGES)


@respx.mock
def test_timeout_and_connection_errors_become_model_errors() -> None:
    respx.post(URL).mock(side_effect=httpx.ReadTimeout("slow"))
    with pytest.raises(ModelError, match=r"within 0\.5 s"):
        _llm().complete(MESSAGES, timeout=0.5)
    respx.post(URL).mock(side_effect=httpx.ConnectError("refused"))
    with pytest.raises(ModelError, match="unreachable"):
        _llm().complete(MESSAGES)


@respx.mock
def test_the_per_call_timeout_reaches_httpx() -> None:
    route = respx.post(URL).mock(return_value=httpx.Response(200, json=_reply("ok")))
    _llm().complete(MESSAGES, timeout=1.5)
    assert route.calls.last.request.extensions["timeout"]["read"] == 1.5


@respx.mock
def test_the_api_key_never_appears_in_errors_logs_or_repr(caplog: pytest.LogCaptureFixture) -> None:
    respx.post(URL).mock(return_value=httpx.Response(503, text="busy"))
    llm = _llm()
    with caplog.at_level(logging.DEBUG), pytest.raises(ModelError) as err:
        llm.complete(MESSAGES)
    answer_narrative("Why?", "en", SNIPPETS, llm, timeout=1)
    assert SECRET not in str(err.value) and SECRET not in repr(llm)
    assert SECRET not in caplog.text


# --- what the user sees when the endpoint misbehaves ------------------------------------


@pytest.mark.parametrize(
    "mock",
    [
        {"return_value": httpx.Response(500)},
        {"side_effect": httpx.ReadTimeout("slow")},
        {"return_value": httpx.Response(200, text="garbage")},
    ],
    ids=["500", "timeout", "malformed"],
)
@respx.mock
def test_narrative_degrades_honestly_never_raises(mock: dict) -> None:
    respx.post(URL).mock(**mock)
    result = answer_narrative("Perché i ricavi sono calati?", "it", SNIPPETS, _llm(), timeout=1)
    assert result.mode == "degraded"
    assert result.text.startswith("Non è stato possibile sintetizzare una risposta")
    assert "Revenue fell because demand fell." in result.text and "[1]" in result.text
    assert [s.doc for s in result.sources] == ["china.md", "eu.md"]
    assert listwise_rerank("Why?", SNIPPETS, _llm(), timeout=1) == SNIPPETS


@respx.mock
def test_narrative_synthesises_through_the_endpoint() -> None:
    respx.post(URL).mock(return_value=httpx.Response(200, json=_reply("Demand in China fell [1].")))
    result = answer_narrative("Why did revenue fall?", "en", SNIPPETS, _llm(), timeout=1)
    assert result.mode == "synthesised"
    assert result.text.startswith("Demand in China fell [1].")
    assert "[1] china.md (section=China)" in result.text and "[2] eu.md (para=2)" in result.text
