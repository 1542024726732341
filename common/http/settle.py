"""Running a handler and settling what the call owes, in one place.

A call is settled once its answer is known: a priced route that delivered (a 2xx answer the
handler did not mark ``billed = False``; a stream once it delivered what it is priced for,
``Streamed.delivered``) records one
usage line (``common.http.metering``), and a call that came with an Idempotency-Key keeps the
answer under the key or, when nothing was delivered (an error, a failed or abandoned stream),
releases the key so that a retry runs again (``common.http.idempotency``, decision 0017).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flask import Response

from common import logging as log
from common.http.responses import render
from common.http.routes import CALLER_AUTHS, Call, Route, Streamed

if TYPE_CHECKING:
    from common.http.idempotency import Reservation
    from common.http.routes import HeaderMap

logger = log.get_logger("ars.http")


@dataclass
class Settlement:
    """What one call owes: its usage record and its Idempotency-Key's reservation."""

    route: Route
    call: Call[Any, Any, Any, Any]
    reservation: Reservation | None = None
    settled: bool = False

    def answered(self, response: Response) -> None:
        """A whole (not streamed) 2xx answer is ready: bill it, then keep it under the key.
        A failure to bill raises, so the caller sees a 502 and the key is released."""
        self._bill()
        if self.reservation is not None:
            from common.http import idempotency

            headers = {**self.call.response_headers, **idempotency.kept_headers(response.headers)}
            body = _without(response.get_data(), self.route.secret_fields)
            self.reservation.complete(response.status_code, headers, body)

    def stream_delivered(self) -> None:
        """The server took the chunk that delivers what the stream is priced for: bill it
        (the answer is out, so a failure to bill is logged for reconciliation, not raised)
        and mark the key used, so a retry with it does not run and bill again. Once."""
        if self.settled:
            return
        self.settled = True
        try:
            self._bill()
        except Exception:
            logger.exception(
                "usage record of a delivered stream was not stored",
                extra={"operation": self.route.price, "requestId": self.call.request_id},
            )
        if self.reservation is not None:
            self.reservation.complete_stream()

    def release(self) -> None:
        """Nothing was delivered (an error, a failed, broken or abandoned stream): the key is
        free again. A no-op once the call was settled."""
        if self.reservation is not None:
            self.reservation.release()

    def stream_undelivered(self) -> None:
        """A stream that ended, failed or was left before it delivered: not billed, noted."""
        if not self.settled:
            self.settled = True
            self._note_unbilled()

    def _bill(self) -> None:
        """One usage record when the call delivered, else the note that it was answered free."""
        principal, call, operation = self.call.principal, self.call, self.route.price
        if not operation or call.billed_by_job:
            return
        if not call.billed:
            self._note_unbilled()
            return
        from common.http import metering

        metering.record(principal.consumer_id, operation, call.request_id, key_id=principal.key_id)

    def _note_unbilled(self) -> None:
        """A priced request answered without a charge (a search with no result, small talk, a
        stream that delivered nothing): noted for the usage API; a failure is only logged."""
        principal, operation = self.call.principal, self.route.price
        if not operation or self.call.billed_by_job:
            return
        from common.http import metering

        try:
            metering.record_unbilled(
                principal.consumer_id, operation, self.call.request_id, key_id=principal.key_id
            )
        except Exception:
            logger.exception("unbilled request not noted", extra={"operation": operation})


def run(
    route: Route, call: Call[Any, Any, Any, Any], target: tuple[str, str, bytes], raw: bytes
) -> Response:
    """The handler's answer, the call settled; a keyed POST/PATCH runs at most once per key
    (the first answer replayed, 409 while it runs, 422 for another request with the key).
    ``target`` (method, path, query string) and ``raw`` (the body) are what makes two
    requests with one key the same request; the key is ``call.headers``'."""
    key = _idempotency_key(route, call.headers)
    if key is None:
        return _execute(Settlement(route, call))
    from common.http import idempotency

    request_hash = idempotency.fingerprint(*target, raw)
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


def _idempotency_key(route: Route, headers: HeaderMap) -> str | None:
    """The Idempotency-Key of a consumer's POST/PATCH (400 if malformed); else None."""
    from common.http import idempotency

    if not route.idempotency or not idempotency.applies(route.method, route.auth in CALLER_AUTHS):
        return None  # the header is ignored elsewhere, as Stripe does
    return idempotency.key_from(headers)


def _streamed(chunks: Iterable[str], stream: Streamed, settlement: Settlement) -> Iterator[str]:
    """The stream's chunks, produced with the request's log context; the call is settled when
    the server comes back for the chunk after the one that delivered (it has taken that one),
    or at the end. Streams are not replayed: a delivered stream marks its key used; one that
    never delivered (nothing found, failed, abandoned before) is not billed and releases it."""
    call = settlement.call
    tokens = [
        (log.correlation_id_var, log.correlation_id_var.set(call.correlation_id)),
        (
            log.consumer_id_var,
            log.consumer_id_var.set(getattr(call.principal, "consumer_id", None)),
        ),
    ]
    try:
        for chunk in chunks:
            delivering = stream.delivered
            yield chunk
            if delivering:  # the server took the chunk that delivers
                settlement.stream_delivered()
        if stream.delivered and not stream.failed:
            settlement.stream_delivered()
        logger.info(
            "stream ended", extra={"route": settlement.route.operation_id, "failed": stream.failed}
        )
    finally:
        # A client gone: the handler's own stream ends now (its audit, its reservation), not
        # whenever the collector finds it (a traceback could hold it for good).
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        settlement.stream_undelivered()  # a no-op once the stream was settled
        settlement.release()  # a no-op once the stream was settled
        for var, token in reversed(tokens):
            # closed from another context than the first chunk's: the values set there went
            # with it, and there is nothing left to restore
            with contextlib.suppress(ValueError):
                var.reset(token)


def _without(body: bytes, fields: tuple[str, ...]) -> bytes:
    """The JSON ``body`` without ``fields`` (dotted paths): what a replay may show. A secret
    such as a new API key is shown once and never stored in clear (decision 0039)."""
    if not fields:
        return body
    document = json.loads(body)
    for path in fields:
        *parents, name = path.split(".")
        node = document
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(name, None)
    return json.dumps(document).encode()
