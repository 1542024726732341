"""The LLM provider port: chat completions from an OpenAI-compatible API, or none (offline).

``get_provider()`` is None with ``LLM_BACKEND=offline`` (callers use the built-in engine) and
otherwise an ``OpenAICompatibleProvider`` built once per process from the settings. It speaks
the Chat Completions wire protocol (``POST {LLM_BASE_URL}/chat/completions``), which OpenAI,
Vertex AI's OpenAI-compatible endpoint and most self-hosted servers accept.

Each attempt is held to ``LLM_TIMEOUT_S``; 429, 5xx, timeouts and connection errors are retried
up to ``LLM_MAX_RETRIES`` times with exponential backoff and jitter (a numeric ``Retry-After``
is honoured up to ``BACKOFF_CAP_S``); any other failure is a ``ProviderError`` (502) at once.
Error messages and logs name the status or error type and the attempt, never the key, the
token, the prompt or the provider's response body (which may echo either).

What is sent is bounded by ``LLM_INPUT_TOKEN_BUDGET`` (``fit``): a conversation of 200 turns of
5,000 characters (1 MiB, what ``chat.summarize`` accepts) would otherwise cost its whole size in
tokens, twice when the answer failed its schema. The instructions (system messages) and the
latest turns are kept, the oldest turns left out and the cut said in the text; a schema failure
is asked again with half the budget (decision 0050).
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from common import container
from common.config import get_settings
from common.errors import ProviderError

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger("ars.llm")

CHARS_PER_TOKEN = 4  # a rough count of tokens, without the provider's tokenizer
OMITTED = "[{count} earlier messages left out: the conversation was longer than this service sends]"
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0
CONNECT_TIMEOUT_CAP_S = 5.0
GOOGLE_SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]

# Tests replace this to make backoff instant and to see the delays chosen.
_sleep: Callable[[float], None] = time.sleep

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}
T = TypeVar("T", bound=BaseModel)


class ChatProvider(Protocol):
    name: str  # e.g. "openai:<model>"

    def complete_json(
        self,
        messages: list[Message],
        schema: type[T],
        *,
        schema_name: str,
        max_tokens: int = 800,
        temperature: float = 0.2,
    ) -> T: ...

    def complete_text(
        self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.4
    ) -> str: ...

    def stream_text(
        self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.4
    ) -> Iterator[str]: ...


class _Transient(Exception):
    """A failure worth retrying: 429, 5xx, a timeout or a connection error."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None) -> None:
        super().__init__(kind)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


_TIMEOUT_DETAIL = "The language model provider did not answer in time. Retry shortly."
_UNREACHABLE_DETAIL = "The language model provider could not be reached. Retry shortly."
_FORMAT_DETAIL = "The language model's answer did not have the expected format."
_CORRECTION = (
    "Your previous answer was not valid JSON matching the required schema '{name}'. Answer "
    "again with only one JSON object that matches this JSON schema, and no other text:\n{schema}"
)


class OpenAICompatibleProvider:
    """A ``ChatProvider`` over HTTP. Thread-safe: one instance serves the whole process."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        auth: Callable[[], str | None],
        timeout_s: float,
        max_retries: int,
        deadline_s: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        import httpx

        self.name = f"openai:{model}"
        self.model = model
        self._url = f"{base_url.rstrip('/')}/chat/completions"
        self._auth = auth
        self._max_retries = max(0, max_retries)
        self._timeout_s = timeout_s
        self._deadline_s = deadline_s  # one call, all attempts and backoffs included
        self._timeout = httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_CAP_S, timeout_s))
        self._owns_client = client is None
        self._client = client or httpx.Client(timeout=self._timeout)

    def close(self) -> None:
        if self._owns_client:
            self._client.close()

    # -- the port ---------------------------------------------------------------------------

    def complete_json(
        self,
        messages: list[Message],
        schema: type[T],
        *,
        schema_name: str,
        max_tokens: int = 800,
        temperature: float = 0.2,
    ) -> T:
        json_schema = schema.model_json_schema()
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": json_schema},
        }
        deadline = self._deadline()
        budget = get_settings().llm_input_token_budget
        messages = fit(messages, budget)
        payload = self._payload(messages, max_tokens, temperature)
        payload["response_format"] = response_format
        content = _content(self._complete(payload, deadline), attempt=1)
        result = _validated(schema, content, attempt=1)
        if result is not None:
            return result
        correction = _CORRECTION.format(
            name=schema_name, schema=json.dumps(json_schema, separators=(",", ":"))
        )
        # asked again with half the budget: the failed answer (at most max_tokens) and the
        # correction come on top, and a failure is not worth the whole input twice
        retry_messages = [*fit(messages, budget // 2)]
        if content:
            retry_messages.append({"role": "assistant", "content": content})
        retry_messages.append({"role": "user", "content": correction})
        payload = self._payload(retry_messages, max_tokens, temperature)
        payload["response_format"] = response_format
        content = _content(self._complete(payload, deadline), attempt=2)
        result = _validated(schema, content, attempt=2)
        if result is None:
            raise ProviderError(_FORMAT_DETAIL)
        return result

    def complete_text(
        self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.4
    ) -> str:
        payload = self._payload(messages, max_tokens, temperature)
        content = _content(self._complete(payload, self._deadline()), 1)
        if not content.strip():
            raise ProviderError("The language model gave an empty answer.")
        return content

    def stream_text(
        self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.4
    ) -> Iterator[str]:
        """Yield the answer's text pieces as they arrive. Failures before the first piece are
        retried like any request; once a piece has been yielded, a failure is a ProviderError."""
        import httpx

        payload = self._payload(messages, max_tokens, temperature)
        payload["stream"] = True
        deadline = self._deadline()
        attempt = 0
        while True:
            attempt += 1
            yielded = False
            try:
                try:
                    with self._client.stream(
                        "POST",
                        self._url,
                        json=payload,
                        headers=self._headers(),
                        timeout=self._attempt_timeout(deadline),
                    ) as response:
                        _check_status(response, attempt)
                        for piece in _stream_pieces(response.iter_lines(), attempt):
                            if time.monotonic() > deadline:  # a trickling provider
                                raise _Transient("Deadline", _TIMEOUT_DETAIL)
                            yielded = True
                            yield piece
                    return
                except httpx.TimeoutException as exc:
                    raise _Transient(type(exc).__name__, _TIMEOUT_DETAIL) from None
                except httpx.TransportError as exc:
                    raise _Transient(type(exc).__name__, _UNREACHABLE_DETAIL) from None
            except _Transient as transient:
                if yielded:
                    logger.warning(
                        "llm stream broke", extra={"attempt": attempt, "error": transient.kind}
                    )
                    raise ProviderError(
                        "The language model's answer was cut off. Retry shortly."
                    ) from None
                self._backoff_or_raise(transient, attempt, deadline)

    # -- transport --------------------------------------------------------------------------

    def _payload(self, messages: list[Message], max_tokens: int, temperature: float) -> dict:
        messages = fit(messages, get_settings().llm_input_token_budget)
        return {
            "model": self.model,
            "messages": [dict(message) for message in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }

    def _headers(self) -> dict[str, str]:
        failure = None
        try:
            token = self._auth()
        except ProviderError:
            raise
        except Exception as exc:  # credential libraries raise many types
            failure = type(exc).__name__
        if failure is not None:  # raised here so the error carries no chained message
            logger.warning("llm credentials unavailable", extra={"error": failure})
            raise ProviderError("The language model provider's credentials failed.")
        headers = {"Accept": "application/json, text/event-stream"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def _deadline(self) -> float:
        return time.monotonic() + self._deadline_s

    def _attempt_timeout(self, deadline: float) -> httpx.Timeout:
        """The per-attempt timeout, cut to what is left of the call's deadline."""
        import httpx

        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProviderError(_TIMEOUT_DETAIL)
        timeout = min(self._timeout_s, remaining)
        return httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT_CAP_S, timeout))

    def _complete(self, payload: dict, deadline: float) -> dict[str, Any]:
        """POST one non-streaming request, with retries; the decoded JSON body."""
        import httpx

        attempt = 0
        while True:
            attempt += 1
            try:
                try:
                    response = self._client.post(
                        self._url,
                        json=payload,
                        headers=self._headers(),
                        timeout=self._attempt_timeout(deadline),
                    )
                except httpx.TimeoutException as exc:
                    raise _Transient(type(exc).__name__, _TIMEOUT_DETAIL) from None
                except httpx.TransportError as exc:
                    raise _Transient(type(exc).__name__, _UNREACHABLE_DETAIL) from None
                _check_status(response, attempt)
            except _Transient as transient:
                self._backoff_or_raise(transient, attempt, deadline)
                continue
            body = _json_or_none(response.content)
            if not isinstance(body, dict):
                logger.warning("llm reply is not a JSON object", extra={"attempt": attempt})
                raise ProviderError("The language model provider gave an unreadable answer.")
            return body

    def _backoff_or_raise(self, transient: _Transient, attempt: int, deadline: float) -> None:
        logger.warning(
            "llm request failed: %s",
            transient.kind,
            extra={"attempt": attempt, "error": transient.kind},
        )
        delay = backoff_delay(attempt, transient.retry_after)
        if attempt > self._max_retries or time.monotonic() + delay >= deadline:
            raise ProviderError(transient.detail)
        _sleep(delay)


def tokens(text: str) -> int:
    """About how many tokens ``text`` is (``CHARS_PER_TOKEN`` characters each)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def fit(messages: list[Message], budget: int) -> list[Message]:
    """``messages`` within ``budget`` tokens: every system message and the last message kept
    (the last cut to what is left, from its start, if it alone is too long), then the latest
    turns that fit; what was left out is said in place of the oldest turns."""
    if sum(tokens(m["content"]) for m in messages) <= budget:
        return messages
    system = [m for m in messages if m["role"] == "system"]
    turns = [m for m in messages if m["role"] != "system"]
    left = budget - sum(tokens(m["content"]) for m in system) - tokens(OMITTED) - 8
    kept: list[Message] = []
    for message in reversed(turns):
        size = tokens(message["content"])
        if size > left:
            if not kept:  # the last message alone is too long: its start is kept
                kept.append(
                    {**message, "content": message["content"][: max(0, left) * CHARS_PER_TOKEN]}
                )
            break
        kept.append(message)
        left -= size
    kept.reverse()
    omitted = len(turns) - len(kept)
    note: list[Message] = (
        [{"role": "user", "content": OMITTED.format(count=omitted)}] if omitted else []
    )
    return [*system, *note, *kept]


def backoff_delay(attempt: int, retry_after: float | None = None) -> float:
    """Seconds to wait after failed attempt ``attempt`` (1-based): a numeric Retry-After up to
    the cap, otherwise exponential from BACKOFF_BASE_S with jitter (half fixed, half random)."""
    if retry_after is not None:
        return min(max(retry_after, 0.0), BACKOFF_CAP_S)
    ceiling = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
    return ceiling / 2 + random.uniform(0, ceiling / 2)  # noqa: S311 (jitter, not crypto)


def _check_status(response: httpx.Response, attempt: int) -> None:
    code = response.status_code
    if 200 <= code < 300:
        return
    if code == 429 or code >= 500:
        detail = (
            "The language model provider is rate limiting requests. Retry shortly."
            if code == 429
            else f"The language model provider failed (HTTP {code}). Retry shortly."
        )
        raise _Transient(f"HTTP {code}", detail, _retry_after(response.headers.get("retry-after")))
    logger.warning("llm request failed: HTTP %s", code, extra={"attempt": attempt, "status": code})
    raise ProviderError(f"The language model provider rejected the request (HTTP {code}).")


def _retry_after(value: str | None) -> float | None:
    """A numeric Retry-After in seconds; None when absent or an HTTP date."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 and seconds == seconds else None  # NaN is not a number


def _json_or_none(data: bytes | str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def _validated(schema: type[T], content: str, *, attempt: int) -> T | None:
    """The reply as ``schema``, or None (logged) when it is not JSON or does not match."""
    try:
        return schema.model_validate_json(content)
    except ValidationError as exc:
        kinds = {error["type"] for error in exc.errors()}
        kind = "invalid_json" if "json_invalid" in kinds else "schema_mismatch"
    logger.warning("llm reply did not match the schema", extra={"attempt": attempt, "error": kind})
    return None


def _content(body: dict[str, Any], attempt: int) -> str:
    """``choices[0].message.content`` of a completion; ProviderError for refusals and
    malformed bodies. Empty content is returned as "" for the caller to judge."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ProviderError("The language model provider gave an answer without choices.")
    choice = choices[0]
    message = choice.get("message")
    if not isinstance(message, dict):
        raise ProviderError("The language model provider gave an answer without a message.")
    if message.get("refusal") or choice.get("finish_reason") == "content_filter":
        _refused(choice, attempt)
    return _text(message.get("content"))


def _text(content: Any) -> str:
    """Content is a string, or (some compatible servers) a list of text parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


def _refused(choice: dict[str, Any], attempt: int) -> None:
    reason = choice.get("finish_reason") or "refusal"
    logger.warning("llm refused: %s", reason, extra={"attempt": attempt, "error": reason})
    raise ProviderError("The language model declined to answer this request.")


def _stream_pieces(lines: Iterable[str], attempt: int = 1) -> Iterator[str]:
    """The text pieces of a Chat Completions server-sent event stream."""
    finished = False
    produced = False
    for data in _sse_data(lines):
        if data.strip() == "[DONE]":
            finished = True
            break
        chunk = _json_or_none(data)
        if not isinstance(chunk, dict):
            raise ProviderError("The language model provider sent an unreadable stream.")
        if "error" in chunk:
            logger.warning("llm stream reported an error", extra={"attempt": attempt})
            raise ProviderError("The language model provider reported an error mid-answer.")
        choices = chunk.get("choices") or []
        if not choices or not isinstance(choices[0], dict):
            continue  # e.g. a final usage-only chunk
        choice = choices[0]
        delta = choice.get("delta") or {}
        if delta.get("refusal") or choice.get("finish_reason") == "content_filter":
            _refused(choice, attempt)
        piece = _text(delta.get("content"))
        if piece:
            produced = True
            yield piece
        if choice.get("finish_reason"):
            finished = True
    if not finished:
        raise ProviderError("The language model's answer was cut off. Retry shortly.")
    if not produced:
        raise ProviderError("The language model gave an empty answer.")


def _sse_data(lines: Iterable[str]) -> Iterator[str]:
    """The data of each server-sent event (its ``data:`` lines joined), in order."""
    buffer: list[str] = []
    for line in lines:
        if not line:
            if buffer:
                yield "\n".join(buffer)
                buffer = []
            continue
        if line.startswith(":"):
            continue  # a comment, e.g. a keep-alive
        field, _, value = line.partition(":")
        if field == "data":
            buffer.append(value[1:] if value.startswith(" ") else value)
    if buffer:
        yield "\n".join(buffer)


# -- the process's provider ------------------------------------------------------------------


def get_provider() -> ChatProvider | None:
    """None when LLM_BACKEND=offline; otherwise the process's provider, built on first use.

    LLM_AUTH=key sends ``Authorization: Bearer LLM_API_KEY`` (none when the key is empty, for
    local servers); LLM_AUTH=google sends an access token of Application Default Credentials,
    refreshed when expired.
    """
    if get_settings().llm_backend == "offline":
        return None
    return _provider.get()


R = TypeVar("R")
OFFLINE = "offline"  # the engine name of the built-in offline engine (common.offline.engine)


def provider_or_offline(
    ask: Callable[[ChatProvider], R | None],
    offline: Callable[[], R],
    *,
    on_failure: Literal["offline", "fail"],
    what: str,
) -> tuple[R, str]:
    """(answer, engine name): the provider's answer when ``LLM_BACKEND`` names one, else the
    offline engine's. The one place the groups fork provider and offline (decision 0038):

    - ``ask`` returning None means the provider's answer broke a rule the service checks (no
      usable section, nothing left after the screen): the offline engine answers instead.
    - a ``ProviderError`` (the provider down, slow past its deadline, malformed) is handled
      by the route's documented policy, ``on_failure``: ``"offline"`` answers offline and logs
      it; ``"fail"`` lets it through as 502 ``backend_unavailable`` (nothing billed).
    """
    provider = get_provider()
    if provider is None:
        return offline(), OFFLINE
    try:
        answer = ask(provider)
    except ProviderError as exc:
        if on_failure == "fail":
            raise
        logger.warning(
            "provider failed; offline engine answers",
            extra={"what": what, "error": type(exc).__name__},
        )
        return offline(), OFFLINE
    if answer is None:
        logger.warning("provider answer unusable; offline engine answers", extra={"what": what})
        return offline(), OFFLINE
    return answer, provider.name


# Built on first use; ``container.reset(PROVIDER)`` closes and forgets it (tests change the
# settings).
PROVIDER = "llm.provider"
_provider: container.Entry[OpenAICompatibleProvider] = container.register(
    PROVIDER, lambda: _build_provider(), close=lambda provider: provider.close()
)


def _build_provider() -> OpenAICompatibleProvider:
    settings = get_settings()
    if not (settings.llm_base_url and settings.llm_model):
        logger.error("LLM_BACKEND=openai needs LLM_BASE_URL and LLM_MODEL")
        raise ProviderError("The language model provider is not configured.")
    auth = google_token_source() if settings.llm_auth == "google" else _key(settings.llm_api_key)
    return OpenAICompatibleProvider(
        settings.llm_base_url,
        settings.llm_model,
        auth=auth,
        timeout_s=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
        deadline_s=settings.llm_deadline_s,
    )


def _key(api_key: str) -> Callable[[], str | None]:
    return lambda: api_key or None


def google_token_source() -> Callable[[], str | None]:
    """Access tokens of Application Default Credentials. The credentials are looked up on the
    first request (not at start-up: on Google Cloud that asks the metadata server)."""
    lock = threading.Lock()
    state: dict[str, Any] = {}

    def token() -> str | None:
        import google.auth
        import google.auth.transport.requests

        with lock:
            if "credentials" not in state:
                credentials, _project = google.auth.default(scopes=GOOGLE_SCOPES)
                state["credentials"] = credentials
                state["request"] = google.auth.transport.requests.Request()
            credentials = state["credentials"]
            if not credentials.valid:  # no token yet, or (about to be) expired
                credentials.refresh(state["request"])
            return credentials.token

    return token
