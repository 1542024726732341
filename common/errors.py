"""The one exception hierarchy. ``common.http`` maps it to problem+json in one place.

Every exception a caller, an operator or another module sees is defined here, whatever module
raises it (decision 0071); the module that raises it imports it from here. The tree, with the
status and problem code each class answers with (a subclass without its own keeps its
parent's) and, for a narrower class, who raises it. ``tests/unit/test_errors_tree.py`` walks
the classes and checks this drawing, so it cannot drift:

    AppError                        500 internal
        InvalidRequest              400 invalid_request
            InvalidPauseToken       400 invalid_request        a signed email link (tracking)
        Unauthorized                401 unauthorized
            InvalidToken            401 unauthorized           a portal ID token (oidc)
            NotInternal             401 unauthorized           not the scheduler or task queue
        InvalidSignature            401 invalid_signature      an inbound webhook
        Forbidden                   403 forbidden
            NotProvisioned          403 not_provisioned        a portal user without account
        SubjectOptedOut             403 subject_opted_out
        NotFound                    404 not_found
        MethodNotAllowed            405 method_not_allowed
        RequestTimeout              408 request_timeout
        LimitExceeded               409 limit_exceeded
        Conflict                    409 conflict
        IdempotencyKeyInUse         409 idempotency_key_in_use
        Gone                        410 gone
        NotAcceptable               406 not_acceptable
        PayloadTooLarge             413 payload_too_large
        UnsupportedMediaType        415 unsupported_media_type
        IdempotencyKeyReused        422 idempotency_key_reused
        NotCovered                  422 topic_not_covered
            DraftDoesNotFit         422 draft_does_not_fit     no draft of a covered topic fits
        NotAnOrganization           422 not_an_organization
        ActivityNotRecognised       422 activity_not_recognised
        JurisdictionNotRecognised   422 jurisdiction_not_recognised
        RateLimited                 429 rate_limited
            TooManyFailures         429 rate_limited           failed authentication (edgelimit)
        SubjectRateLimited          429 subject_rate_limited
        ConfirmationLimit           429 confirmation_limit
        Warming                     503 warming
        Overloaded                  503 overloaded
        BackendUnavailable          502 backend_unavailable
            ProviderError           502 backend_unavailable    the language model (llm)
            EmbeddingsUnavailable   502 backend_unavailable    the embedding provider
            IndexMismatch           502 backend_unavailable    vectors of another model
            NotIndexed              502 backend_unavailable    a text index never built
            EmailNotSent            502 backend_unavailable    not sent: safe to retry
                EmailRejected       502 backend_unavailable    refused for good: never retried
            EmailOutcomeUnknown     502 backend_unavailable    maybe sent: never resent blindly
        InternalError               500 internal
    ValueError
        ImportFileError             -                          admin import: unreadable file

``ImportFileError`` is never answered (no route raises it): ``admin.py import`` prints it.

Kept in their modules, each used only inside it or unable to live here (the test checks that
this list names every other exception class of ``common/``, ``functions/`` and the entry
points):

- ``common.datafiles.ContentError`` (RuntimeError): a data file that does not match its model;
  ``datafiles`` raises it and sits below this module (the ``common-rooms`` contract), so it
  cannot import it from here. A deployment's bug, never answered as a problem.
- ``common.adapters.feeds._FetchError``: one feed's failure, turned into ``FeedResult.error``
  before it leaves ``feeds``.
- ``common.adapters.llm._Transient``: a provider failure worth retrying; retried, or turned into
  ``ProviderError``, inside ``llm``.
- ``functions.osint.service._NoNews``: every news source failed; ``service`` ends the profile's
  stream with a ``backend_unavailable`` event.
- ``functions.webhooks.service.Unusable``: a verified IdP event no retry can use; ``handle``
  in the same module records it as ``ignored``.
- ``functions.mcp.protocol.RpcError``: a JSON-RPC error answer of ``/mcp`` (a JSON-RPC body,
  not problem+json), raised by ``protocol`` and ``server`` of the same group; its HTTP status
  comes from the protocol's table of JSON-RPC codes, which ``common/`` may not import.

Not exceptions: ``common.http.streams.StreamError`` and ``functions.chat.models.ChatError``
are stream events (an ``Event`` carrying a problem code to a client mid-stream). Not the
service: ``devtools.emulator.EmulatorError`` and ``bench.search.Failed`` belong to tools that
are never deployed.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.language import clip

# A field's name as an error shows it (in ``errors`` and the detail): a caller's own names
# are echoed only this long, so a 900 KB name is not answered with a 1.8 MB problem.
MAX_FIELD_CHARS = 200


@dataclass(frozen=True)
class FieldError:
    """One bad field of a request: ``field`` is a dotted path such as ``body.topics.0``, cut
    to ``MAX_FIELD_CHARS``."""

    field: str
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", clip(self.field, MAX_FIELD_CHARS))


class AppError(Exception):
    """An error with a stable ``code`` and an HTTP status. Handlers raise these, never build
    error bodies themselves."""

    status: int = 500
    code: str = "internal"
    title: str = "Internal error"

    def __init__(
        self,
        detail: str | None = None,
        *,
        errors: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.errors = errors or []
        self.headers = headers or {}


class InvalidRequest(AppError):
    status, code, title = 400, "invalid_request", "Invalid request"


class InvalidPauseToken(InvalidRequest):
    """A tampered, malformed or expired signed email link (400), checked by
    ``functions.tracking.pause_token``."""


class Unauthorized(AppError):
    status, code, title = 401, "unauthorized", "Missing or invalid API key"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail or "Send a valid API key as 'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": 'Bearer realm="advocacy-research"'},
        )


class InvalidToken(Unauthorized):
    """A portal ID token that is not valid (``common.accounts.oidc``)."""

    def __init__(self) -> None:
        super().__init__("Send a valid ID token from the sign-in as 'Authorization: Bearer'.")


class NotInternal(Unauthorized):
    """A call of an internal endpoint without the scheduler's or task queue's token
    (``common.accounts.internal``)."""

    def __init__(self) -> None:
        super().__init__("This endpoint is for the service's scheduler and task queue only.")


class InvalidSignature(AppError):
    """An inbound webhook whose signature does not verify (``common.http.webhooks``)."""

    status, code, title = 401, "invalid_signature", "Invalid webhook signature"


class Forbidden(AppError):
    status, code, title = 403, "forbidden", "Forbidden"


class NotProvisioned(Forbidden):
    """A portal user with no consumer account (``common.accounts.consumers``)."""

    code, title = "not_provisioned", "Account not provisioned"


class SubjectOptedOut(AppError):
    """The person asked not to be profiled (the OSINT opt-out list); not billed."""

    status, code, title = 403, "subject_opted_out", "Subject opted out"


class NotFound(AppError):
    status, code, title = 404, "not_found", "Not found"


class MethodNotAllowed(AppError):
    status, code, title = 405, "method_not_allowed", "Method not allowed"

    def __init__(self, allowed: list[str]) -> None:
        super().__init__(
            f"This path accepts {', '.join(allowed)}.", headers={"Allow": ", ".join(allowed)}
        )


class RequestTimeout(AppError):
    status, code, title = 408, "request_timeout", "Request timeout"


class LimitExceeded(AppError):
    status, code, title = 409, "limit_exceeded", "Limit exceeded"


class Conflict(AppError):
    status, code, title = 409, "conflict", "Concurrent change"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail or "Another request changed the same data at the same moment; retry.",
            headers={"Retry-After": "1"},
        )


class IdempotencyKeyInUse(AppError):
    status, code, title = 409, "idempotency_key_in_use", "Idempotency key in use"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail
            or "A request with this Idempotency-Key is still running; retry once it has ended.",
            headers={"Retry-After": "1"},
        )


class Gone(AppError):
    status, code, title = 410, "gone", "Gone"


class NotAcceptable(AppError):
    status, code, title = 406, "not_acceptable", "Not acceptable"


class PayloadTooLarge(AppError):
    status, code, title = 413, "payload_too_large", "Payload too large"


class UnsupportedMediaType(AppError):
    status, code, title = 415, "unsupported_media_type", "Unsupported media type"


class IdempotencyKeyReused(AppError):
    status, code, title = 422, "idempotency_key_reused", "Idempotency key reused"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail
            or "This Idempotency-Key was used with another request (method, path or body) in "
            "the last 24 hours. Send a new key for a new request."
        )


class NotCovered(AppError):
    """The request is valid but the service has nothing to ground an answer on (not billed)."""

    status, code, title = 422, "topic_not_covered", "Topic not covered"


class DraftDoesNotFit(NotCovered):
    """The topic is covered, but no sentence its best passage gives fits a post or a thread on
    that platform, whole or cut at a clause that adds to it (content, decision 0079); not
    billed."""

    status, code, title = 422, "draft_does_not_fit", "Draft does not fit"


class NotAnOrganization(AppError):
    """A company profile asked for a name that is a person's (OSINT, decision 0037); not billed."""

    status, code, title = 422, "not_an_organization", "Not an organization"


class ActivityNotRecognised(AppError):
    """A legal-guidance request names no activity the guides or the legal notes speak to
    (decision 0068); not billed."""

    status, code, title = 422, "activity_not_recognised", "Activity not recognised"


class JurisdictionNotRecognised(AppError):
    """A legal-guidance request's ``jurisdiction`` names no place the service knows (decision
    0068); not billed."""

    status, code, title = 422, "jurisdiction_not_recognised", "Jurisdiction not recognised"


class RateLimited(AppError):
    status, code, title = 429, "rate_limited", "Rate limit exceeded"


class TooManyFailures(RateLimited):
    """This address failed authentication too often; nothing was read to answer it
    (``common.http.edgelimit``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "Too many failed authentication attempts from this address; retry after "
            f"{retry_after} s with a valid key.",
            headers={"Retry-After": str(retry_after)},
        )


class SubjectRateLimited(AppError):
    """This person was profiled as often as a day allows, by all consumers together."""

    status, code, title = 429, "subject_rate_limited", "Subject profiled too often"


class ConfirmationLimit(AppError):
    """This account caused as many confirmation emails today as a day allows
    (CONFIRMATIONS_PER_DAY): nothing was saved; the owner's own and confirmed addresses still
    work."""

    status, code, title = 429, "confirmation_limit", "Too many new recipients today"


class Warming(AppError):
    """This instance has just started and is still loading what its first requests need
    (``common.http.warmup``): ``/health`` says so, and a load balancer sends requests elsewhere
    until it answers 200."""

    status, code, title = 503, "warming", "Starting"

    def __init__(self) -> None:
        super().__init__(
            "This instance is still loading what its first requests need (the encoder, the "
            "screen's patterns); it serves them within seconds. Retry after the pause in "
            "Retry-After.",
            headers={"Retry-After": "1"},
        )


class Overloaded(AppError):
    """This instance is running as many requests of this kind as it can (common.http.capacity),
    or a transaction met other requests' changes of the same records until its deadline
    (common.adapters.firestore.run_transaction): nothing was done and nothing billed; retry after
    the pause."""

    status, code, title = 503, "overloaded", "Busy"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail
            or "The service is running as many searches as it can at the moment; nothing was "
            "done or billed. Retry after the pause in Retry-After.",
            headers={"Retry-After": "1"},
        )


class BackendUnavailable(AppError):
    status, code, title = 502, "backend_unavailable", "Backend unavailable"


class ProviderError(BackendUnavailable):
    """The language model could not give a usable answer (502 ``backend_unavailable``;
    ``common.adapters.llm``)."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail or "The language model provider failed. Retry shortly.")


class EmbeddingsUnavailable(BackendUnavailable):
    """The embedding provider failed, timed out or answered nonsense (502;
    ``common.search.embeddings``)."""


class IndexMismatch(BackendUnavailable):
    """The collection's vectors come from another model than this deployment embeds with
    (``common.search.retrieval``)."""


class NotIndexed(BackendUnavailable):
    """The collection holds documents its text index does not (written before the index
    existed): an operator must run ``reindex`` (``common.search.postings``)."""


class EmailNotSent(BackendUnavailable):
    """The provider definitely did not accept the message: safe to retry
    (``common.adapters.email``)."""


class EmailRejected(EmailNotSent):
    """The provider refused this message for good (a 4xx other than 408/429, e.g. a bad
    recipient): sending it again cannot succeed."""


class EmailOutcomeUnknown(BackendUnavailable):
    """The provider may have accepted the message: it must not be resent blindly."""


class InternalError(AppError):
    status, code, title = 500, "internal", "Internal error"


# --- not answered: raised and caught in the service's own code, shown to an operator --------


class ImportFileError(ValueError):
    """An import file that cannot be read as a whole (missing, unknown format, no header...):
    ``functions.search.importer`` raises it, ``admin.py import`` prints it and exits 2."""
