"""The one exception hierarchy. ``common.http`` maps it to problem+json in one place."""

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


class Unauthorized(AppError):
    status, code, title = 401, "unauthorized", "Missing or invalid API key"

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(
            detail or "Send a valid API key as 'Authorization: Bearer <key>'.",
            headers={"WWW-Authenticate": 'Bearer realm="advocacy-research"'},
        )


class Forbidden(AppError):
    status, code, title = 403, "forbidden", "Forbidden"


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


class InternalError(AppError):
    status, code, title = 500, "internal", "Internal error"
