"""Firestore: the lazily built client, collection names and the backend-error translation.

The client is built on first use (never at import) and once per process. Every RPC it makes is
held to ``FIRESTORE_TIMEOUT_S`` in total, retries included, so an unreachable or slow Firestore
gives a prompt 502 instead of the library's default of up to 300 s of retrying.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from common import container
from common.config import get_settings
from common.errors import BackendUnavailable, Conflict, Overloaded

if TYPE_CHECKING:
    from google.cloud.firestore import Client

CONSUMERS = "consumers"
API_KEYS = "api_keys"
SUBSCRIPTIONS = "subscriptions"
RESULTS = "results"  # subcollection of a subscription
IDP_USERS = "idp_users"  # IdP user id -> consumer id, with the IdP's last update time
WEBHOOK_RECEIPTS = "webhook_receipts"
MEMORIES = "memories"
RATELIMIT_WINDOWS = "ratelimit_windows"
USAGE = "usage"
# Priced requests answered but not billed (nothing delivered; decision 0039), so a bill reconciles.
USAGE_UNBILLED = "usage_unbilled"
TASKS = "tasks"  # task records: status and result of async jobs (TTL on expires_at)
PAUSE_TOKENS = "pause_tokens"  # used one-click pause links (TTL on expires_at)
IDEMPOTENCY_KEYS = "idempotency_keys"  # Idempotency-Key records and answers (TTL on expires_at)
CONSENTS = "recipient_consents"  # (consumer, third-party address) -> pending/confirmed/revoked
CONFIRMATION_COUNTS = "confirmation_counts"  # confirmation emails per account per day (TTL)
SUPPRESSIONS = "email_suppressions"  # sha256(address) -> why no email may go there
SEARCH_INDEXES = "search_indexes"  # searchable collection -> the embedding model of its vectors
TEXT_POSTINGS = "text_postings"  # (collection, term, shard) -> postings for BM25 (decision 0048)
KNOWLEDGE = "knowledge_passages"  # chunks of the knowledge corpus, with their vectors
OSINT_AUDIT = "osint_audit"  # who asked for a profile of whom, when and why (TTL on expires_at)
OSINT_OPTOUTS = "osint_optouts"  # people who may not be profiled, by folded name
OSINT_SUBJECT_COUNTS = "osint_subject_counts"  # profiles per subject per day (TTL on expires_at)
# The searchable tables are collections named after themselves: campaigns, organizations,
# public_figures, actions, content (functions/search/tables.py).

# Databases (decision 0051). The main one holds every collection but these: the suppression
# list and third-party recipients' consents are in the recipients database, which only the
# functions that mail or manage recipients may reach; the OSINT opt-out list, audit log and
# subject counts in the osint database, which only the functions that keep the OSINT rules
# (osint, and chat's assistant) may reach (IAM conditions on each database, terraform/iam.tf).
# A transaction stays within one database.
MAIN = "main"
RECIPIENTS = "recipients"
OSINT = "osint"
DATABASE_OF = {
    SUPPRESSIONS: RECIPIENTS,
    CONSENTS: RECIPIENTS,
    CONFIRMATION_COUNTS: RECIPIENTS,
    OSINT_OPTOUTS: OSINT,
    OSINT_AUDIT: OSINT,
    OSINT_SUBJECT_COUNTS: OSINT,
}

T = TypeVar("T")

_lock = threading.Lock()  # guards what is learnt of the restricted collections (below)
# Until ``admin move-restricted`` has run, the main database may still hold a restricted
# collection's older documents (``locations``): whether it does is read again at most this often.
LEGACY_RECHECK_S = 60.0
_moved_out: set[str] = set()  # restricted collections the main database holds nothing of
_legacy_seen_at: dict[str, float] = {}


def get_db(database: str = MAIN) -> Client:
    """The process's Firestore client of ``database`` (``MAIN``, ``RECIPIENTS``, ``OSINT``),
    built on first use."""
    return _clients[database].get()


def collection(name: str) -> Any:
    """The collection ``name``, in the database that holds it (``DATABASE_OF``)."""
    return get_db(DATABASE_OF.get(name, MAIN)).collection(name)


def locations(name: str) -> list[Any]:
    """Every place the documents of collection ``name`` may be: its own database's collection
    (``collection``, where they are written) and, for a restricted collection, the main
    database's one while it still holds documents written there before decision 0051, that is
    until ``admin move-restricted`` has moved them. A reader looks in each, so no suppression
    or opt-out is unseen during an upgrade (decision 0063)."""
    own = collection(name)
    if name not in DATABASE_OF or _moved_from_main(name):
        return [own]
    return [own, get_db().collection(name)]


def _moved_from_main(name: str) -> bool:
    """True once the main database holds no document of ``name``. Once true it stays so in
    this process: nothing writes a restricted collection there any more. While it holds some,
    it is read again at most every ``LEGACY_RECHECK_S``."""
    now = time.monotonic()
    with _lock:
        if name in _moved_out:
            return True
        if now - _legacy_seen_at.get(name, float("-inf")) < LEGACY_RECHECK_S:
            return False
    empty = not list(get_db().collection(name).limit(1).select([]).stream())
    with _lock:
        if empty:
            _moved_out.add(name)
        else:
            _legacy_seen_at[name] = now
    return empty


def forget_moved() -> None:
    """Forget what was learnt of the restricted collections' old location (tests, and after
    ``move_restricted`` in this process)."""
    with _lock:
        _moved_out.clear()
        _legacy_seen_at.clear()


def database_id(database: str) -> str:
    """The Firestore database id of ``MAIN``, ``RECIPIENTS`` or ``OSINT`` (settings)."""
    settings = get_settings()
    return {
        MAIN: settings.firestore_database,
        RECIPIENTS: settings.firestore_recipients_database,
        OSINT: settings.firestore_osint_database,
    }[database]


def _client_of(database: str) -> Client:
    return _build_client(database_id(database))


def _build_client(database: str) -> Client:
    from google.cloud import firestore

    settings = get_settings()
    if settings.firestore_emulator_host:
        # The client library reads the emulator address from the environment only.
        os.environ["FIRESTORE_EMULATOR_HOST"] = settings.firestore_emulator_host
    client = firestore.Client(project=settings.google_cloud_project, database=database)
    _bound_rpc_deadlines(client, settings.firestore_timeout_s)
    return client


def _bound_rpc_deadlines(client: Client, deadline_s: float) -> None:
    """Cap every RPC's default retry deadline and per-attempt timeout.

    The generated transport wraps each method with a default retry of up to 60 s (and the
    transaction helper retries begin/commit on top of that). Calls that pass no ``timeout`` or
    ``retry`` -- transactions' begin and commit among them -- would otherwise hang a request
    for minutes when Firestore is unreachable. There is no public hook for the defaults, so
    they are rewritten once here, on the wrapped callables of the transport.
    """
    _bound_transport_deadlines(client._firestore_api._transport, deadline_s)


def _bound_transport_deadlines(transport: Any, deadline_s: float) -> None:
    for wrapped in transport._wrapped_methods.values():
        retry = getattr(wrapped, "_retry", None)
        if retry is not None:
            wrapped._retry = retry.with_timeout(deadline_s)
        wrapped._timeout = deadline_s


def stream_documents(query: Any, timeout: float) -> Iterator[Any]:
    """The documents ``query`` matches, as the plain protobuf ``Document`` messages of the
    RunQuery stream (``name``, ``fields``, ``update_time``), in the query's order, for reading
    many documents cheaply (the dispatcher reads every due subscription once per tick).

    Two costs are avoided (decision 0036), measured per document on this machine:
    - ``query.stream()`` builds a ``DocumentSnapshot`` (proto-plus wrappers, a decoded dict);
      reading the protobuf fields instead: 0.18 ms of CPU down to 0.05 ms;
    - a gRPC channel hands each message of a stream from its polling thread to the reading
      thread (a lock and a wake-up per document); a channel with gRPC's
      ``SingleThreadedUnaryStream`` option reads the stream on the caller's thread: 0.05 ms
      down to 0.02 ms. That channel serves these streams only (``_streaming_api``); the
      option is gRPC's, marked experimental, so nothing else depends on it.

    The request is the one ``Query.stream`` sends, with the client's routing metadata; the
    private names it uses are checked by tests/unit/test_google_api_core_contract.py. There is
    no resume after an error mid-stream: the caller restarts from its own cursor."""
    from google.cloud.firestore_v1.types import firestore as firestore_types

    client = query._client
    parent, _ = query._parent._parent_info()
    responses = _streaming_api().run_query(
        request={"parent": parent, "structured_query": query._to_protobuf()},
        metadata=client._rpc_metadata,
        timeout=timeout,
    )
    unwrap = firestore_types.RunQueryResponse.pb
    for response in responses:
        message = unwrap(response)
        if message.HasField("document"):
            yield message.document


def _streaming_api() -> Any:
    """A generated Firestore client (``FirestoreClient``) for ``stream_documents``: same
    target, credentials and deadlines as ``get_db()``'s, on its own channel whose streams are
    read on the caller's thread."""
    return _stream_api.get()


def _build_streaming_api(client: Client) -> Any:
    import grpc
    import grpc.experimental
    from google.cloud.firestore_v1.services.firestore import FirestoreClient
    from google.cloud.firestore_v1.services.firestore.transports import FirestoreGrpcTransport

    options = [
        (grpc.experimental.ChannelOptions.SingleThreadedUnaryStream, 1),
        # The server may run only gRPC's default window (64 KiB) ahead of the reader. With
        # bandwidth probing the window grows to megabytes, held here while the reader waits
        # for the enqueuer (measured, 40,000 read at 2,000/s: +3.6-6.2 MiB, without: +0.9).
        ("grpc.http2.bdp_probe", 0),
        ("grpc.max_receive_message_length", -1),
        ("grpc.keepalive_time_ms", 30000),  # as the library's own channel
    ]
    if client._emulator_host is not None:  # as the library: insecure, no token needed
        channel = grpc.insecure_channel(client._emulator_host, options=options)
    else:
        channel = FirestoreGrpcTransport.create_channel(
            client._target, credentials=client._credentials, options=options
        )
    transport = FirestoreGrpcTransport(channel=channel)
    _bound_transport_deadlines(transport, get_settings().firestore_timeout_s)
    return FirestoreClient(transport=transport)


def is_backend_error(exc: BaseException) -> bool:
    """True for errors that mean Firestore (or another Google API) is unreachable or failing.

    Also the AttributeError google-cloud-firestore raises while handling a query stream that
    failed (``Query._retry_query_after_exception`` reads ``_retry`` of a gRPC callable that has
    none, issue 26): its context is the stream's own error."""
    core = sys.modules.get("google.api_core.exceptions")
    if core is not None and isinstance(exc, core.GoogleAPIError):
        return True
    grpc = sys.modules.get("grpc")
    if grpc is not None and isinstance(exc, grpc.RpcError):
        return True
    cause = exc.__context__
    return (
        isinstance(exc, AttributeError)
        and "_retry" in str(exc)
        and cause is not None
        and is_backend_error(cause)
    )


def backend_unavailable(exc: BaseException) -> BackendUnavailable:
    if isinstance(exc, AttributeError) and exc.__context__ is not None:
        exc = exc.__context__  # the stream's own error (is_backend_error)
    kind = "did not answer in time" if type(exc).__name__ in _TIMEOUTS else "failed"
    return BackendUnavailable(f"The database {kind}. Retry the request shortly.")


_TIMEOUTS = {"DeadlineExceeded", "RetryError"}


def run_transaction(
    fn: Callable[..., T],
    *args: Any,
    database: str = MAIN,
    in_line_on: Any = None,
) -> T:
    """Run ``fn(transaction, *args)`` in a Firestore transaction on ``database``.

    Contention (Aborted: another transaction held the same documents) is retried, ``fn`` run
    again on a new transaction after a jittered, doubling pause, until ``FIRESTORE_TIMEOUT_S``
    after the call began (a transaction is one database call to its caller, held to the same
    deadline as any other); contention that outlasts it is 503 ``overloaded`` with
    Retry-After, nothing saved. Any other backend failure is 502. ``fn`` may run more than
    once, so it has no effect outside the transaction.

    ``in_line_on``: the document every such transaction of a kind reads and writes (a
    consumer's record, which holds its counts); this instance's transactions on it run one at
    a time, in line within the same deadline, instead of meeting in Firestore, where
    transactions that read a document and then write it each wait for the others' read locks
    (the emulator ends the wait after 2 s; issue 43). Decision 0064.
    """
    from google.api_core.exceptions import Aborted
    from google.cloud import firestore

    deadline = time.monotonic() + get_settings().firestore_timeout_s
    line = _line(in_line_on) if in_line_on is not None else None
    for attempt in itertools.count():
        if line is not None and not line.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise _contended()
        try:
            transaction = get_db(database).transaction(max_attempts=1)
            return firestore.transactional(fn)(transaction, *args)
        except Aborted:  # a read of the transaction was refused (the library re-raises it)
            pass
        except ValueError as exc:  # the library's report of a commit refused
            cause = exc.__cause__
            if cause is not None and not isinstance(cause, Aborted) and is_backend_error(cause):
                raise backend_unavailable(cause) from exc
            if not isinstance(cause, Aborted):
                raise
        finally:
            if line is not None:
                line.release()
        ceiling = min(CONTENTION_PAUSE_MAX_S, CONTENTION_PAUSE_S * 2**attempt)
        pause = random.uniform(0, ceiling)  # noqa: S311 (jitter, not crypto)
        if time.monotonic() + pause >= deadline:
            raise _contended()
        time.sleep(pause)
    raise AssertionError("unreachable")


CONTENTION_PAUSE_S = 0.02  # the first pause after contention, doubled after each (jittered)
CONTENTION_PAUSE_MAX_S = 0.5
_LINES = [threading.Lock() for _ in range(1024)]  # a document's line: its path's stripe


def _line(ref: Any) -> threading.Lock:
    return _LINES[zlib.crc32(ref.path.encode()) % len(_LINES)]


def _contended() -> Overloaded:
    return Overloaded(
        "Other requests were changing the same records and this one could not be saved in "
        "time; nothing was saved or billed. Retry after the pause in Retry-After."
    )


BULK_ATTEMPTS = 4  # tries of one step of an import or reindex (1 + 2 + 4 s between them)
_TRANSIENT = {
    "DeadlineExceeded",
    "RetryError",
    "ServiceUnavailable",
    "InternalServerError",
    "Aborted",
    "ResourceExhausted",
}


def retried(call: Callable[[], T], attempts: int = BULK_ATTEMPTS) -> T:
    """``call()``, made again after a transient backend error (a deadline passed, the backend
    busy or restarting), up to ``attempts`` times with backoff: for the steps of operator bulk
    work (imports, ``reindex``), which would otherwise stop a 100,000-row import at its first
    slow commit. Only for idempotent steps: reads, and sets of data fixed before the call
    (a commit that timed out may have been applied; applying it again changes nothing).
    Never on a request's path, whose deadline is ``FIRESTORE_TIMEOUT_S`` in all."""
    for attempt in range(attempts):
        try:
            return call()
        except Exception as exc:
            if attempt == attempts - 1 or not is_transient(exc):
                raise
            time.sleep(2**attempt)
    raise AssertionError("unreachable")


def is_transient(exc: BaseException) -> bool:
    """A backend error that a later try of the same call may not meet."""
    if not is_backend_error(exc):
        return False
    if isinstance(exc, AttributeError) and exc.__context__ is not None:
        exc = exc.__context__
    return type(exc).__name__ in _TRANSIENT


BATCH_WRITES = 400  # Firestore allows 500 writes per batch
BATCH_BYTES = 2_000_000  # and gRPC 4 MiB per message


def write_batched(
    writes: Iterable[tuple[Any, dict[str, Any], bool]],
    estimate: Callable[[dict[str, Any]], int] | None = None,
) -> int:
    """Commit ``(reference, data, merge)`` sets in as few batches as Firestore and gRPC accept
    (at most ``BATCH_WRITES`` writes and about ``BATCH_BYTES`` each; a batch of full text-index
    heads or of long records passed gRPC's 4 MiB once); returns the count. Not atomic across
    batches: callers order their writes so that a stop between batches loses nothing.
    ``estimate`` gives a write's bytes (default: its JSON's length). Each commit is
    ``retried`` after a transient error: these are sets of fixed data, so a commit applied
    twice changes nothing (only operator bulk work calls this)."""
    db = get_db()
    batch, count, size, total = db.batch(), 0, 0, 0
    for ref, data, merge in writes:
        weight = (estimate(data) if estimate else len(json.dumps(data, default=str))) + 200
        if count and (count >= BATCH_WRITES or size + weight > BATCH_BYTES):
            retried(batch.commit)
            batch, count, size = db.batch(), 0, 0
        batch.set(ref, data, merge=merge)
        count, size, total = count + 1, size + weight, total + 1
    if count:
        retried(batch.commit)
    return total


def add_to_counters(refs: list[Any], amount: int, expires_at: Any) -> list[int]:
    """Add ``amount`` to each counter document (its ``count``, with ``expires_at`` for the TTL
    policy) in one batch of atomic increments, without a read or a transaction; the counts
    after it, which the commit returns: concurrent callers get distinct counts."""
    from google.cloud.firestore import Increment

    if not refs:
        return []
    batch = get_db(DATABASE_OF.get(refs[0].parent.id, MAIN)).batch()
    for ref in refs:
        batch.set(ref, {"count": Increment(amount), "expires_at": expires_at}, merge=True)
    counts = []
    for result in batch.commit():
        value = result.transform_results[0]
        counts.append(int(value.integer_value or value.double_value))
    return counts


@dataclass
class CounterPlaces:
    """Places taken in counters with ``add_to_counters``; ``release`` gives them back, once
    (a daily limit that counts only what was delivered)."""

    refs: list[Any] = field(default_factory=list)
    expires_at: Any = None

    def release(self) -> None:
        refs, self.refs = self.refs, []
        if refs:
            add_to_counters(refs, -1, self.expires_at)


def move_restricted(page_size: int = 400) -> dict[str, dict[str, int]]:
    """Move the documents of the restricted collections (``DATABASE_OF``) that are still in
    the main database, written before decision 0051, to their databases: of each page, what
    the destination lacks is copied (created, never overwritten: a document already there was
    written since the upgrade and is newer), then the page is deleted from the main database.
    Returns per collection how many were ``copied`` and how many ``kept`` (newer in the
    destination). A run that stops can be run again: nothing is deleted before the
    destination holds it. For the operator's upgrade (``admin move-restricted``); until it has
    run, readers look in both places (``locations``)."""
    moved = {}
    for name, database in DATABASE_OF.items():
        source, target = get_db().collection(name), get_db(database).collection(name)
        copied = kept = 0
        while True:
            docs = retried(partial(_page, source, page_size))
            if not docs:
                break
            created = _copy_missing(target, docs)
            delete = get_db().batch()
            for doc in docs:
                delete.delete(doc.reference)
            retried(delete.commit)
            copied, kept = copied + created, kept + len(docs) - created
        moved[name] = {"copied": copied, "kept": kept}
    forget_moved()
    return moved


def _copy_missing(target: Any, docs: list[Any]) -> int:
    """Create in ``target`` the documents of ``docs`` it does not hold; returns how many. A
    document the service writes there meanwhile makes the batch fail as a whole (a create's
    precondition): the page is then read again."""
    from google.api_core.exceptions import AlreadyExists

    db = target._client
    for _ in range(BULK_ATTEMPTS):
        refs = [target.document(doc.id) for doc in docs]
        held = {snap.id for snap in retried(partial(_existing, db, refs))}
        missing = [doc for doc in docs if doc.id not in held]
        if not missing:
            return 0
        batch = db.batch()
        for doc in missing:
            batch.create(target.document(doc.id), doc.to_dict() or {})
        try:
            retried(batch.commit)
        except AlreadyExists:
            continue  # written meanwhile, or a timed-out commit that was applied: read again
        return len(missing)
    raise Conflict("The destination kept changing while documents were copied; run it again.")


def _existing(db: Any, refs: list[Any]) -> list[Any]:
    return [snap for snap in db.get_all(refs, field_paths=[]) if snap.exists]


def _page(query: Any, size: int) -> list[Any]:
    return list(query.limit(size).stream())


def where_eq(field: str, value: Any) -> Any:
    """A ``field == value`` filter for ``Query.where(filter=...)``."""
    return field_filter(field, "==", value)


def field_filter(field: str, op: str, value: Any) -> Any:
    """A filter for ``Query.where(filter=...)``: ``field_filter("day", ">=", "2026-11-01")``."""
    from google.cloud.firestore_v1.base_query import FieldFilter

    return FieldFilter(field, op, value)


def delete_matching(query: Any, batch_size: int = 400, database: str = MAIN) -> int:
    """Delete every document a query or collection of ``database`` matches, in batches;
    returns the count."""
    db = get_db(database)
    deleted = 0
    while True:
        docs = list(query.limit(batch_size).select([]).stream())
        if not docs:
            return deleted
        batch = db.batch()
        for doc in docs:
            batch.delete(doc.reference)
        batch.commit()
        deleted += len(docs)


# The process's clients (decision 0072): built on first use; tests point the process at another
# emulator or port with ``container.reset()``.
_clients: dict[str, container.Entry[Client]] = {
    database: container.register(f"firestore.{database}", partial(_client_of, database))
    for database in (MAIN, RECIPIENTS, OSINT)
}
_stream_api: container.Entry[Any] = container.register(
    "firestore.stream_api", lambda: _build_streaming_api(get_db())
)
CLIENTS = (*(entry.name for entry in _clients.values()), _stream_api.name)
