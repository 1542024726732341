"""Running a handler and settling what the call owes, in one place.

A call is settled once its answer is known: a priced route that delivered (a 2xx answer the
handler did not mark ``billed = False``; a stream that ended without failing) records one
usage line (``common.http.metering``), and a call that came with an Idempotency-Key keeps the
answer under the key or, when nothing was delivered (an error, a failed or abandoned stream),
releases the key so that a retry runs again (``common.http.idempotency``, decision 0017).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Request, Response

from common import logging as log
from common.http.responses import render
from common.http.routes import Auth, Call, Route, Streamed

if TYPE_CHECKING:
    from common.http.idempotency import Reservation

logger = log.get_logger("ars.http")


@dataclass
class Settlement:
    """What one call owes: its usage record and its Idempotency-Key's reservation."""

    route: Route
    call: Call[Any, Any, Any, Any]
    reservation: Reservation | None = None

    def answered(self, response: Response) -> None:
        """A whole (not streamed) 2xx answer is ready: bill it, then keep it under the key.
        A failure to bill raises, so the caller sees a 502 and the key is released."""
        self._bill()
        if self.reservation is not None:
            from common.http import idempotency

            headers = {**self.call.response_headers, **idempotency.kept_headers(response.headers)}
            self.reservation.complete(response.status_code, headers, response.get_data())

    def stream_ended(self, stream: Streamed) -> None:
        """A stream was sent to its end: bill it unless it failed (the answer is out, so a
        failure to bill is logged for reconciliation, not raised), and mark the key used."""
        if stream.failed:
            return
        try:
            self._bill()
        except Exception:
            logger.exception(
                "usage record of a completed stream was not stored",
                extra={"operation": self.route.price, "requestId": self.call.request_id},
            )
        if self.reservation is not None:
            self.reservation.complete_stream()

    def release(self) -> None:
        """Nothing was delivered (an error, a failed, broken or abandoned stream): the key is
        free again. A no-op once the call was settled."""
        if self.reservation is not None:
            self.reservation.release()

    def _bill(self) -> None:
        principal = self.call.principal
        if self.route.price and self.call.billed:
            from common.http import metering

            metering.record(
                principal.consumer_id,
                self.route.price,
                self.call.request_id,
                key_id=principal.key_id,
            )


def run(route: Route, call: Call[Any, Any, Any, Any], request: Request, raw: bytes) -> Response:
    """The handler's answer, the call settled; a keyed POST/PATCH runs at most once per key
    (the first answer replayed, 409 while it runs, 422 for another request with the key)."""
    key = _idempotency_key(route, request)
    if key is None:
        return _execute(Settlement(route, call))
    from common.http import idempotency

    request_hash = idempotency.fingerprint(request.method, request.path, request.query_string, raw)
    began = idempotency.begin(call.principal.consumer_id, key, request_hash)
    if isinstance(began, idempotency.Replay):  # not run, not billed; the rate limit counted it
        response = Response(began.body, status=began.status, headers=began.headers)
        response.headers[idempotency.REPLAYED_HEADER] = "true"
        return response
    call.request_id = began.request_id  # billed once per key, even if run again after a crash
    settlement = Settlement(route, call, began)
    try:
        return _execute(settlement)
    except BaseException:
        settlement.release()  # an error changed nothing and is not billed: a retry runs again
        raise


def _execute(settlement: Settlement) -> Response:
    """Handler -> answer -> settlement (a stream settles when it ends)."""
    route, call = settlement.route, settlement.call
    result = route.handler(call)
    if isinstance(result, Streamed):
        result.chunks = _streamed(result.chunks, result, settlement)
        return render(route.status, result)
    response = render(route.status, result)  # only a 2xx answer reaches this line
    settlement.answered(response)
    return response


def _idempotency_key(route: Route, request: Request) -> str | None:
    """The Idempotency-Key of a POST/PATCH with an API key (400 if malformed); else None."""
    if not (route.auth is Auth.API_KEY and route.method in ("POST", "PATCH")):
        return None  # the header is ignored elsewhere, as Stripe does
    from common.http.idempotency import key_from

    return key_from(request.headers)


def _streamed(chunks: Iterable[str], stream: Streamed, settlement: Settlement) -> Iterator[str]:
    """The stream's chunks, produced with the request's log context, then the call settled.
    Streams are not replayed: a stream that ends marks its key used; one that failed, broke or
    was abandoned (not billed) releases it."""
    call = settlement.call
    tokens = [
        (log.correlation_id_var, log.correlation_id_var.set(call.correlation_id)),
        (
            log.consumer_id_var,
            log.consumer_id_var.set(getattr(call.principal, "consumer_id", None)),
        ),
    ]
    try:
        yield from chunks
        settlement.stream_ended(stream)
        logger.info(
            "stream ended", extra={"route": settlement.route.operation_id, "failed": stream.failed}
        )
    finally:
        settlement.release()  # a no-op once the stream was settled
        for var, token in reversed(tokens):
            var.reset(token)
