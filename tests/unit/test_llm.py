"""The LLM provider port against a loopback fake of an OpenAI-compatible API."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict

from common import container
from common.adapters import llm
from common.adapters.llm import (
    PROVIDER,
    OpenAICompatibleProvider,
    get_provider,
)
from common.errors import BackendUnavailable, ProviderError
from tests.conftest import ROOT
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    raw,
    refusal,
    reply,
    sleep,
    status,
    stream,
)

KEY = "sk-test-secret-key-0123456789"
MODEL = "test-model"
TIMEOUT_S = 0.3
PROMPT = "Summarise the cage-free pledges of Example Foods Ltd in the EU (private prompt)."
MESSAGES = [
    {"role": "system", "content": "You are a careful research assistant."},
    {"role": "user", "content": PROMPT},
]


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: Literal["yes", "no"]
    confidence: float


VALID = '{"label": "yes", "confidence": 0.9}'


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Backoff is instant; the list holds the delays the provider chose."""
    delays: list[float] = []
    monkeypatch.setattr(llm, "_sleep", delays.append)
    return delays


@pytest.fixture
def provider(server: FakeOpenAIServer, sleeps: list[float]) -> Iterator[OpenAICompatibleProvider]:
    instance = OpenAICompatibleProvider(
        server.base_url, MODEL, auth=lambda: KEY, timeout_s=TIMEOUT_S, max_retries=2
    )
    yield instance
    instance.close()


@pytest.fixture
def llm_env(settings_env) -> Iterator:
    """Settings from the environment, with a fresh process provider before and after."""
    container.reset(PROVIDER)
    yield settings_env
    container.reset(PROVIDER)


# -- JSON completions ------------------------------------------------------------------------


def test_complete_json_sends_a_chat_completions_request(provider, server):
    server.script(reply(VALID))

    verdict = provider.complete_json(
        MESSAGES, Verdict, schema_name="verdict", max_tokens=123, temperature=0.1
    )

    assert verdict == Verdict(label="yes", confidence=0.9)
    assert provider.name == f"openai:{MODEL}"
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.body == {
        "model": MODEL,
        "messages": MESSAGES,
        "max_tokens": 123,
        "temperature": 0.1,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "verdict",
                "strict": True,
                "schema": Verdict.model_json_schema(),
            },
        },
    }


def test_complete_text_returns_the_content_without_a_response_format(provider, server):
    server.script(reply("Three retailers pledged in 2024."))

    assert provider.complete_text(MESSAGES) == "Three retailers pledged in 2024."

    [request] = server.requests
    assert "response_format" not in request.body
    assert "stream" not in request.body
    assert (request.body["max_tokens"], request.body["temperature"]) == (800, 0.4)


def test_no_authorization_header_when_auth_gives_none(server, sleeps):
    server.script(reply("ok"))
    provider = OpenAICompatibleProvider(
        server.base_url, MODEL, auth=lambda: None, timeout_s=TIMEOUT_S, max_retries=0
    )

    assert provider.complete_text(MESSAGES) == "ok"
    assert "authorization" not in server.requests[0].headers


# -- retries ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("retry_after", "waited"), [("0", 0.0), ("3", 3.0), ("60", 8.0)])
def test_429_is_retried_after_retry_after_up_to_the_cap(
    provider, server, sleeps, retry_after, waited
):
    server.script(status(429, headers={"Retry-After": retry_after}), reply(VALID))

    assert provider.complete_json(MESSAGES, Verdict, schema_name="verdict").label == "yes"

    assert len(server.requests) == 2
    assert sleeps == [waited]


def test_500_twice_then_success_backs_off_exponentially(provider, server, sleeps):
    server.script(status(500), status(503), reply(VALID))

    assert provider.complete_json(MESSAGES, Verdict, schema_name="verdict").confidence == 0.9

    assert len(server.requests) == 3
    first, second = sleeps
    assert llm.BACKOFF_BASE_S / 2 <= first <= llm.BACKOFF_BASE_S
    assert llm.BACKOFF_BASE_S <= second <= 2 * llm.BACKOFF_BASE_S


def test_backoff_is_capped():
    assert all(llm.backoff_delay(attempt) <= llm.BACKOFF_CAP_S for attempt in range(1, 20))
    assert llm.backoff_delay(10) >= llm.BACKOFF_CAP_S / 2


def test_500_beyond_max_retries_is_a_provider_error(provider, server, sleeps):
    server.script(status(500), status(500), status(500), reply(VALID))

    with pytest.raises(ProviderError, match="HTTP 500") as caught:
        provider.complete_text(MESSAGES)

    assert isinstance(caught.value, BackendUnavailable)
    assert caught.value.status == 502
    assert caught.value.code == "backend_unavailable"
    assert len(server.requests) == 3  # the first attempt and max_retries=2 retries
    assert len(sleeps) == 2
    assert server.pending == 1


def test_timeout_then_success(provider, server, sleeps):
    server.script(sleep(2.0, then=reply(VALID)), reply(VALID))

    assert provider.complete_json(MESSAGES, Verdict, schema_name="verdict").label == "yes"

    assert len(server.requests) == 2
    assert len(sleeps) == 1


def test_timeout_every_time_is_a_provider_error(provider, server, sleeps):
    server.script(sleep(2.0), sleep(2.0), sleep(2.0))

    with pytest.raises(ProviderError, match="in time"):
        provider.complete_text(MESSAGES)

    assert len(server.requests) == 3
    assert len(sleeps) == 2


def test_connection_refused_is_retried_then_a_provider_error(sleeps):
    with FakeOpenAIServer() as gone:
        url = gone.base_url  # a port nobody listens on once the server stops
    provider = OpenAICompatibleProvider(
        url, MODEL, auth=lambda: KEY, timeout_s=TIMEOUT_S, max_retries=2
    )

    with pytest.raises(ProviderError, match="could not be reached"):
        provider.complete_text(MESSAGES)
    assert len(sleeps) == 2


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
def test_other_4xx_fail_at_once(provider, server, sleeps, code):
    server.script(status(code), reply(VALID))

    with pytest.raises(ProviderError, match=f"HTTP {code}"):
        provider.complete_json(MESSAGES, Verdict, schema_name="verdict")

    assert len(server.requests) == 1
    assert sleeps == []


# -- bad answers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [b'{"choices": [', b"<html>502 Bad Gateway</html>", b"", b'"just a string"']
)
def test_a_body_that_is_not_a_json_object_is_a_provider_error(provider, server, sleeps, body):
    server.script(raw(body), reply(VALID))

    with pytest.raises(ProviderError, match="unreadable"):
        provider.complete_json(MESSAGES, Verdict, schema_name="verdict")

    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "body",
    [{"id": "x"}, {"choices": []}, {"choices": [{"index": 0, "finish_reason": "stop"}]}],
)
def test_a_completion_without_a_message_is_a_provider_error(provider, server, body):
    server.script(status(200, body=body))

    with pytest.raises(ProviderError, match="without"):
        provider.complete_text(MESSAGES)


@pytest.mark.parametrize("content", ["", "   ", None])
def test_empty_text_content_is_a_provider_error(provider, server, content):
    server.script(reply(content))

    with pytest.raises(ProviderError, match="empty"):
        provider.complete_text(MESSAGES)


def test_content_that_is_not_json_gets_one_corrective_request(provider, server):
    server.script(reply("Sure! Here is the verdict: yes."), reply(VALID))

    verdict = provider.complete_json(MESSAGES, Verdict, schema_name="verdict")

    assert verdict.label == "yes"
    assert len(server.requests) == 2
    first, second = server.requests
    assert first.messages == MESSAGES
    assert second.messages[: len(MESSAGES)] == MESSAGES
    assistant, correction = second.messages[len(MESSAGES) :]
    assert assistant == {"role": "assistant", "content": "Sure! Here is the verdict: yes."}
    assert correction["role"] == "user"
    assert "only one JSON object" in correction["content"]
    assert "'verdict'" in correction["content"]
    assert second.body["response_format"] == first.body["response_format"]


def test_a_long_conversation_is_sent_within_the_budget_and_its_retry_within_half(
    provider, server, settings_env
):
    """200 turns of 5,000 characters (1 MiB, what chat.summarize accepts): the instructions
    and the latest turns go, the cut is said; a schema failure is asked again with half."""
    settings_env(LLM_INPUT_TOKEN_BUDGET="2000")
    turns = [
        {"role": "user" if n % 2 else "assistant", "content": f"turn {n} " + "x" * 4990}
        for n in range(200)
    ]
    system = {"role": "system", "content": "Summarise the conversation."}
    server.script(reply("not json"), reply(VALID))

    provider.complete_json([system, *turns], Verdict, schema_name="verdict")

    first, second = server.requests
    sent = [sum(len(m["content"]) for m in r.messages) for r in (first, second)]
    assert sent[0] <= 2000 * llm.CHARS_PER_TOKEN
    correction = sum(len(m["content"]) for m in second.messages[-2:])
    assert sent[1] - correction <= 1000 * llm.CHARS_PER_TOKEN
    assert first.messages[0] == system
    assert first.messages[-1] == turns[-1]  # the latest turn, whole
    omitted = 200 - (len(first.messages) - 2)
    assert first.messages[1]["content"].startswith(f"[{omitted} earlier messages left out")
    assert second.messages[0] == system


def test_fit_keeps_short_conversations_and_cuts_a_single_long_message():
    short = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert llm.fit(short, 100) == short
    long = [{"role": "user", "content": "y" * 10_000}]
    [cut] = llm.fit(long, 100)  # its start: the question's own words
    assert 0 < llm.tokens(cut["content"]) <= 100


def test_empty_json_content_also_gets_the_corrective_request(provider, server):
    server.script(reply(""), reply(VALID))

    assert provider.complete_json(MESSAGES, Verdict, schema_name="verdict").label == "yes"
    # No empty assistant message is sent back, only the correction.
    assert [m["role"] for m in server.requests[1].messages] == ["system", "user", "user"]


def test_schema_violations_twice_are_a_provider_error(provider, server, caplog):
    server.script(
        reply('{"label": "maybe", "confidence": 0.5}'),
        reply('{"label": "yes"}'),
        reply(VALID),
    )

    with (
        caplog.at_level(logging.WARNING, logger="ars.llm"),
        pytest.raises(ProviderError, match="expected format"),
    ):
        provider.complete_json(MESSAGES, Verdict, schema_name="verdict")

    assert len(server.requests) == 2
    assert server.pending == 1
    assert [r.attempt for r in caplog.records] == [1, 2]


def test_a_json_retry_that_fails_at_http_level_is_a_provider_error(provider, server):
    server.script(reply("not json"), status(401))

    with pytest.raises(ProviderError, match="HTTP 401"):
        provider.complete_json(MESSAGES, Verdict, schema_name="verdict")
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "behaviour",
    [refusal("I can't help with that."), reply("partial", finish_reason="content_filter")],
    ids=["refusal", "content_filter"],
)
def test_a_refusal_is_a_provider_error_without_retry(provider, server, sleeps, behaviour):
    server.script(behaviour, reply(VALID))

    with pytest.raises(ProviderError, match="declined"):
        provider.complete_json(MESSAGES, Verdict, schema_name="verdict")

    assert len(server.requests) == 1
    assert sleeps == []


# -- streaming -------------------------------------------------------------------------------


def test_stream_text_yields_the_pieces_in_order(provider, server):
    server.script(stream(["Cage-free ", "pledges ", "grew ", "in 2024."]))

    pieces = list(provider.stream_text(MESSAGES, max_tokens=50))

    assert pieces == ["Cage-free ", "pledges ", "grew ", "in 2024."]
    [request] = server.requests
    assert request.body["stream"] is True
    assert request.body["max_tokens"] == 50
    assert request.headers["authorization"] == f"Bearer {KEY}"


def test_stream_text_yields_each_piece_as_it_arrives(provider, server):
    hold = threading.Event()
    server.script(stream(["first", " second"], hold=hold))

    pieces = provider.stream_text(MESSAGES)
    # The server sends nothing more until released: buffering the answer would time out here.
    assert next(pieces) == "first"
    hold.set()
    assert list(pieces) == [" second"]


def test_a_500_before_the_stream_starts_is_retried(provider, server, sleeps):
    server.script(status(500), stream(["hello", " world"]))

    assert "".join(provider.stream_text(MESSAGES)) == "hello world"
    assert len(server.requests) == 2
    assert len(sleeps) == 1


def test_a_stream_cut_after_text_is_a_provider_error_without_retry(provider, server, sleeps):
    server.script(stream(["one", "two", "three"], cut_after=1), stream(["again"]))

    pieces = provider.stream_text(MESSAGES)
    assert next(pieces) == "one"
    with pytest.raises(ProviderError, match="cut off"):
        list(pieces)

    assert len(server.requests) == 1
    assert sleeps == []


def test_a_stream_that_fails_with_4xx_is_not_retried(provider, server, sleeps):
    server.script(status(400), stream(["unused"]))

    with pytest.raises(ProviderError, match="HTTP 400"):
        list(provider.stream_text(MESSAGES))
    assert len(server.requests) == 1


def test_sse_parsing_follows_the_event_stream_format():
    lines = [
        ": comment",
        "event: message",
        'data: {"choices": [{"delta": {"content": "a"}, "finish_reason": null}]}',
        "",
        'data: {"choices": [{"delta": {"content": "b"},',
        'data:  "finish_reason": "stop"}]}',
        "",
        "data: [DONE]",
    ]

    assert list(llm._stream_pieces(lines)) == ["a", "b"]


# -- the process's provider ------------------------------------------------------------------


def test_offline_backend_has_no_provider(llm_env):
    llm_env(LLM_BACKEND="offline", LLM_BASE_URL="http://127.0.0.1:9/v1", LLM_MODEL=MODEL)

    assert get_provider() is None


def test_openai_backend_builds_one_provider_from_the_settings(llm_env, server):
    llm_env(
        LLM_BACKEND="openai",
        LLM_BASE_URL=server.base_url,
        LLM_MODEL=MODEL,
        LLM_API_KEY=KEY,
        LLM_AUTH="key",
        LLM_TIMEOUT_S="0.3",
        LLM_MAX_RETRIES="0",
    )
    server.script(reply("hello"), status(500))

    with ThreadPoolExecutor(8) as pool:
        providers = list(pool.map(lambda _: get_provider(), range(16)))

    provider = providers[0]
    assert isinstance(provider, OpenAICompatibleProvider)
    assert all(p is provider for p in providers)
    assert provider.name == f"openai:{MODEL}"
    assert provider.complete_text(MESSAGES) == "hello"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    with pytest.raises(ProviderError):  # LLM_MAX_RETRIES=0: no retry
        provider.complete_text(MESSAGES)
    assert len(server.requests) == 2

    container.reset(PROVIDER)
    assert get_provider() is not provider


def test_openai_backend_without_url_or_model_is_a_provider_error(llm_env):
    llm_env(LLM_BACKEND="openai", LLM_BASE_URL="", LLM_MODEL="")

    with pytest.raises(ProviderError, match="not configured"):
        get_provider()


class FakeCredentials:
    def __init__(self) -> None:
        self.token: str | None = None
        self.valid = False
        self.refreshes = 0

    def refresh(self, _request) -> None:
        self.refreshes += 1
        self.token = f"ya29.token-{self.refreshes}"
        self.valid = True


def test_google_auth_sends_a_refreshed_adc_access_token(llm_env, server, monkeypatch):
    import google.auth

    credentials = FakeCredentials()
    scopes_asked: list[list[str]] = []

    def fake_default(scopes=None):
        scopes_asked.append(scopes)
        return credentials, "some-project"

    monkeypatch.setattr(google.auth, "default", fake_default)
    llm_env(LLM_BACKEND="openai", LLM_BASE_URL=server.base_url, LLM_MODEL=MODEL, LLM_AUTH="google")
    server.script(reply("one"), reply("two"), reply("three"))
    provider = get_provider()
    assert scopes_asked == []  # credentials are looked up on first use, not when built

    provider.complete_text(MESSAGES)
    provider.complete_text(MESSAGES)
    credentials.valid = False  # the token expired
    provider.complete_text(MESSAGES)

    assert scopes_asked == [["https://www.googleapis.com/auth/cloud-platform"]]
    assert [r.headers["authorization"] for r in server.requests] == [
        "Bearer ya29.token-1",
        "Bearer ya29.token-1",
        "Bearer ya29.token-2",
    ]


def test_google_credentials_failure_is_a_provider_error(llm_env, server, monkeypatch):
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    def no_credentials(scopes=None):
        raise DefaultCredentialsError("no ADC found at /secret/path")

    monkeypatch.setattr(google.auth, "default", no_credentials)
    llm_env(LLM_BACKEND="openai", LLM_BASE_URL=server.base_url, LLM_MODEL=MODEL, LLM_AUTH="google")

    with pytest.raises(ProviderError, match="credentials") as caught:
        get_provider().complete_text(MESSAGES)
    assert "/secret/path" not in str(caught.value)
    assert server.requests == []


def test_importing_the_module_does_no_heavy_imports():
    code = (
        "import sys, common.adapters.llm;"
        "heavy = [m for m in ('google.auth', 'google.cloud.firestore') if m in sys.modules];"
        "print(heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# -- secrets stay out of errors and logs -----------------------------------------------------


def test_the_key_and_prompt_never_reach_errors_or_logs(provider, server, caplog):
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}. Prompt: {PROMPT}"}}
    server.script(
        status(401, body=echo),
        status(500, body=echo),
        status(500, body=echo),
        status(500, body=echo),
        sleep(2.0),
        sleep(2.0),
        sleep(2.0),
        raw(f"oops {KEY}".encode()),
        reply(f"not json {KEY}"),
        reply(f"still not json {KEY}"),
        refusal(f"I won't repeat {KEY}"),
    )
    errors: list[ProviderError] = []
    with caplog.at_level(logging.DEBUG):
        for _ in range(6):
            with pytest.raises(ProviderError) as caught:
                provider.complete_json(MESSAGES, Verdict, schema_name="verdict")
            errors.append(caught.value)

    assert server.pending == 0
    for error in errors:
        text = f"{error} {error!r} {error.detail} {error.__cause__!r} {error.__context__!r}"
        assert KEY not in text
        assert PROMPT not in text
    logged = caplog.text + json.dumps([r.__dict__ for r in caplog.records], default=str)
    assert KEY not in logged
    assert PROMPT not in logged
    warnings = [r for r in caplog.records if r.name == "ars.llm" and r.levelno == logging.WARNING]
    assert {r.attempt for r in warnings} == {1, 2, 3}


def test_one_call_never_outlives_its_deadline(server: FakeOpenAIServer, sleeps: list[float]):
    """Retries and the JSON correction round share one deadline."""
    import time

    slow = OpenAICompatibleProvider(
        server.base_url, MODEL, auth=lambda: KEY, timeout_s=0.3, max_retries=5, deadline_s=0.5
    )
    server.script(*[sleep(1.0) for _ in range(6)])
    started = time.monotonic()
    with pytest.raises(ProviderError):
        slow.complete_text([{"role": "user", "content": "hi"}])
    assert time.monotonic() - started < 1.0
    assert len(server.requests) <= 2
    slow.close()


class _Named:
    name = "fake:model"


@pytest.mark.parametrize(
    ("provider", "ask", "on_failure", "expected"),
    [
        (None, None, "offline", ("offline answer", "offline")),  # LLM_BACKEND=offline
        (_Named(), "provider answer", "offline", ("provider answer", "fake:model")),
        (_Named(), None, "fail", ("offline answer", "offline")),  # unusable: offline, any policy
        (_Named(), ProviderError(), "offline", ("offline answer", "offline")),
        (_Named(), ProviderError(), "fail", ProviderError),  # 502, as the route documents
    ],
)
def test_provider_or_offline_follows_the_routes_failure_policy(
    monkeypatch, caplog, provider, ask, on_failure, expected
):
    monkeypatch.setattr(llm, "get_provider", lambda: provider)

    def answer(_provider):
        if isinstance(ask, Exception):
            raise ask
        return ask

    call = lambda: llm.provider_or_offline(  # noqa: E731
        answer, lambda: "offline answer", on_failure=on_failure, what="test"
    )
    if expected is ProviderError:
        with pytest.raises(ProviderError):
            call()
        return
    with caplog.at_level(logging.WARNING, logger="ars.llm"):
        assert call() == expected
    fell_back = provider is not None and expected[1] == "offline"
    assert any(getattr(r, "what", None) == "test" for r in caplog.records) is fell_back
