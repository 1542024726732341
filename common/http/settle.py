"""Running a handler and settling what the call owes, in one place (decisions 0039, 0066).

The rule, for every answer (JSON, NDJSON, server-sent events, an MCP result): a call is billed
once what it is priced for has been **written to the client**, and only then is its
Idempotency-Key kept and a person's place in her day kept (``Call.when_settled``); an answer
that was not (an error, a client gone before, a stream that never delivered) is not billed,
is noted as answered free when it was answered, and gives its key and places back.

Written: the server came back for the next chunk after writing it, or the answer ended after
it, and the client was connected when the chunk was handed to the server
(``common.http.connection``: TCP takes a write after the client has gone without an error, so
a client gone before the chunk is told by its closed connection before the write; after it, a
client that read the chunk and hung up at once looks the same as one gone before). What a
chunk delivers is the handler's word: a whole answer delivers with its body (``Call.billed``
says whether it is billed), a stream with the chunk produced while ``Streamed.delivered`` was
set.

A call run by another call's handler (an MCP tool call, run by the ``/mcp`` route's handler
through ``common.http.pipeline.perform``) is read by that handler, not by the client: it is
carried by the answer of the call that ran it, and settled when that answer is written.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import Response, has_request_context, request

from common import logging as log
from common.http.connection import probe
from common.http.responses import render
from common.http.routes import CALLER_AUTHS, Call, Route, Streamed

if TYPE_CHECKING:
    from common.http.idempotency import Reservation
    from common.http.routes import HeaderMap

logger = log.get_logger("ars.http")

# The call whose handler is running: a call performed meanwhile is carried by its answer.
_running: ContextVar[Settlement | None] = ContextVar("running_call", default=None)


def _connected() -> bool:
    return True


@dataclass
class Settlement:
    """What one call owes (its usage record, its Idempotency-Key, its hooks), settled once."""

    route: Route
    call: Call[Any, Any, Any, Any]
    reservation: Reservation | None = None
    carrier: Settlement | None = None  # the call whose answer carries this one's
    connected: Callable[[], bool] = _connected  # whether the client is still there
    carried: list[Settlement] = field(default_factory=list)
    ready: bool = False  # carried: its reader took what it is priced for
    kept: tuple[int, dict[str, str], bytes] | None = None  # a whole answer, for the key
    settled: bool = False

    def __post_init__(self) -> None:
        if self.carrier is not None:
            self.carrier.carried.append(self)

    @property
    def at_stake(self) -> bool:
        """Whether anything waits on the answer being written (else it is settled at once)."""
        return bool(self.route.price or self.reservation or self.call.settled_hooks or self.carried)

    def answered(self, response: Response) -> None:
        """A whole 2xx answer is handed over. The server writes it in one piece at once, so it
        is delivered if the client is still there (a failure to bill raises: the caller gets a
        502 instead, and the key is released); a carried one waits for its carrier."""
        if self.reservation is not None:
            from common.http import idempotency

            headers = {**self.call.response_headers, **idempotency.kept_headers(response.headers)}
            body = _without(response.get_data(), self.route.secret_fields)
            self.kept = (response.status_code, headers, body)
        if self.carrier is None and not self.at_stake:
            self.settled = True  # nothing waits on it
        else:
            self.taken(strict=True)

    def taken(self, *, strict: bool = False, connected: bool | None = None) -> None:
        """Whoever reads the answer took the part that delivers: the client (then the call is
        delivered if the client was connected when it was handed over: ``connected``, else
        now), or the handler of the carrying call (then it is ready, and settled with the
        carrying answer). ``strict``: a failure to bill raises."""
        if self.carrier is not None:
            self.ready = True
        elif self.connected() if connected is None else connected:
            self.delivered(strict=strict)
        else:
            self.undelivered()

    def left(self) -> None:
        """The reader stopped (the answer ended, failed or was closed): what has not been
        delivered by now is not. A carried call waits for its carrier."""
        if self.carrier is None:
            self.undelivered()

    def delivered(self, *, strict: bool = False) -> None:
        """Written to the client: bill it, keep its key used, then its hooks and the calls it
        carried. Once. A failure to bill raises when ``strict`` (a whole answer not yet sent:
        the caller gets a 502 instead), else it is logged for reconciliation (the answer is
        out)."""
        if self.settled:
            return
        self.settled = True
        try:
            self._bill()
        except Exception:
            if strict:
                raise
            logger.exception(
                "usage record of a delivered answer was not stored",
                extra={"operation": self.route.price, "requestId": self.call.request_id},
            )
        if self.reservation is not None:
            if self.kept is not None:
                self.reservation.complete(*self.kept)
            else:
                self.reservation.complete_stream()  # streams are not replayed
        self._conclude(True)
        for carried in self.carried:
            if carried.ready:
                carried.delivered()
            else:
                carried.undelivered()

    def undelivered(self) -> None:
        """Answered but not delivered (a client gone, a stream that delivered nothing): not
        billed, noted as answered free; the key is free again. Once."""
        if self.settled:
            return
        self.settled = True
        self._note_unbilled()
        self.fail()

    def fail(self) -> None:
        """Nothing answered (an error) or nothing delivered: the key is free again, so a retry
        runs again, and the hooks and carried calls hear that nothing was delivered."""
        self.settled = True
        if self.reservation is not None:
            self.reservation.release()  # a no-op once completed
        self._conclude(False)
        for carried in self.carried:
            carried.undelivered()

    def _conclude(self, delivered: bool) -> None:
        hooks, self.call.settled_hooks = self.call.settled_hooks, []
        for hook in hooks:
            try:
                hook(delivered)
            except Exception:
                logger.exception("a settled call's hook failed", extra={"delivered": delivered})

    def _bill(self) -> None:
        """One usage record when the call delivered, else the note that it was answered free."""
        principal, call, operation = self.call.principal, self.call, self.route.price
        if not operation or call.billed_by_job:
            return
        if not call.billed:
            self._note_unbilled()
            return
        from common.billing import metering

        metering.record(principal.consumer_id, operation, call.request_id, key_id=principal.key_id)

    def _note_unbilled(self) -> None:
        """A priced request answered without a charge (a search with no result, small talk, a
        stream that delivered nothing, a client gone before the answer): noted for the usage
        API; a failure is only logged."""
        principal, operation = self.call.principal, self.route.price
        if not operation or self.call.billed_by_job:
            return
        from common.billing import metering

        try:
            metering.record_unbilled(
                principal.consumer_id, operation, self.call.request_id, key_id=principal.key_id
            )
        except Exception:
            logger.exception("unbilled request not noted", extra={"operation": operation})


def run(
    route: Route, call: Call[Any, Any, Any, Any], target: tuple[str, str, bytes], raw: bytes
) -> Response:
    """The handler's answer, the call settled once it is written (or carried by the running
    call's answer); a keyed POST/PATCH runs at most once per key (the first answer replayed,
    409 while it runs, 422 for another request with the key). ``target`` (method, path, query
    string) and ``raw`` (the body) are what makes two requests with one key the same request;
    the key is ``call.headers``'."""
    carrier = _running.get()
    connected = _connected
    if carrier is None and has_request_context():
        connected = probe(request.environ)
    key = _idempotency_key(route, call.headers)
    if key is None:
        return _execute(Settlement(route, call, None, carrier, connected))
    from common.http import idempotency

    request_hash = idempotency.fingerprint(*target, raw)
    began = idempotency.begin(call.principal.consumer_id, key, request_hash)
    if isinstance(began, idempotency.Replay):  # not run, not billed; the rate limit counted it
        response = Response(began.body, status=began.status, headers=began.headers)
        response.headers[idempotency.REPLAYED_HEADER] = "true"
        return response
    call.request_id = began.request_id  # billed once per key, even if run again after a crash
    return _execute(Settlement(route, call, began, carrier, connected))


def _execute(settlement: Settlement) -> Response:
    """Handler -> answer; the call is settled as its answer is written."""
    route, call = settlement.route, settlement.call
    running = _running.set(settlement)
    try:
        result = route.handler(call)
        if isinstance(result, Streamed):
            result.chunks = _streamed(result.chunks, result, settlement)
            return render(route.status, result)
        response = render(route.status, result)  # only a 2xx answer reaches this line
        settlement.answered(response)
        return response
    except BaseException:
        settlement.fail()  # an error changed nothing and is not billed: a retry runs again
        raise
    finally:
        _running.reset(running)


def _idempotency_key(route: Route, headers: HeaderMap) -> str | None:
    """The Idempotency-Key of a consumer's POST/PATCH (400 if malformed); else None."""
    from common.http import idempotency

    if not route.idempotency or not idempotency.applies(route.method, route.auth in CALLER_AUTHS):
        return None  # the header is ignored elsewhere, as Stripe does
    return idempotency.key_from(headers)


def _streamed(chunks: Iterable[str], stream: Streamed, settlement: Settlement) -> Iterator[str]:
    """The stream's chunks, produced with the request's log context. The chunk produced
    while ``stream.delivered`` was set delivers: the call is settled when the reader comes
    back for the next chunk (it has taken that one), or at the end; a stream that ends
    without it (nothing found, failed, abandoned before) is not billed. Streams are not
    replayed: a delivered stream marks its key used; one that did not releases it."""
    call = settlement.call
    tokens = [
        (log.correlation_id_var, log.correlation_id_var.set(call.correlation_id)),
        (
            log.consumer_id_var,
            log.consumer_id_var.set(getattr(call.principal, "consumer_id", None)),
        ),
    ]
    # Whether the client was there when the last chunk was handed to the server: asked before
    # the write, since a client that read the chunk and hung up at once looks, after it, just
    # like one that had gone before it (TCP takes the write either way).
    there = True
    try:
        for chunk in chunks:
            delivering = stream.delivered
            if not settlement.settled:
                there = settlement.connected()
            yield chunk
            if delivering:  # the reader took the chunk that delivers
                settlement.taken(connected=there)
        if stream.delivered and not stream.failed:
            settlement.taken(connected=there)
        logger.info(
            "stream ended", extra={"route": settlement.route.operation_id, "failed": stream.failed}
        )
    finally:
        # A client gone: the handler's own stream ends now (its audit, its reservation), not
        # whenever the collector finds it (a traceback could hold it for good).
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
        settlement.left()  # a no-op once the stream was settled
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
